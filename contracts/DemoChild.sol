// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// Created by DemoCaller with CREATE and CREATE2; holds ether until its parent destroys it.
contract DemoChild {
    address public immutable parent;

    event Pinged(address indexed from, uint256 value);

    constructor() payable {
        parent = msg.sender;
    }

    function ping() external payable {
        emit Pinged(msg.sender, msg.value);
    }

    function destroy(address payable recipient) external {
        require(msg.sender == parent, "only the parent can destroy");
        selfdestruct(recipient);
    }
}
