// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {DemoChild} from "./DemoChild.sol";
import {DemoERC20} from "./DemoERC20.sol";

/// Produces internal transactions: nested calls, value transfers, CREATE/CREATE2,
/// selfdestruct, and reverts deep in the call tree.
contract DemoCaller {
    event ChildCreated(address indexed child, bool create2);
    event Descended(uint256 depth);
    event RevertCaught(uint256 depth, bytes reason);

    function mintAndSend(DemoERC20 token, address to, uint256 amount) external {
        token.mint(address(this), amount);
        token.transfer(to, amount);
    }

    function split(address payable[] calldata recipients) external payable {
        uint256 share = msg.value / recipients.length;
        for (uint256 i = 0; i < recipients.length; i++) {
            Address.sendValue(recipients[i], share);
        }
    }

    /// CREATE a child with half the value, then send it the other half through a call.
    function spawn() external payable returns (DemoChild child) {
        uint256 endowment = msg.value / 2;
        child = new DemoChild{value: endowment}();
        child.ping{value: msg.value - endowment}();
        emit ChildCreated(address(child), false);
    }

    function spawn2(bytes32 salt) external payable returns (DemoChild) {
        return _create2(salt);
    }

    /// Created and destroyed in one transaction, the only case in which Cancun (EIP-6780) removes the code.
    function spawnAndDestroy(bytes32 salt, address payable recipient) external payable {
        _create2(salt).destroy(recipient);
    }

    /// After Cancun this moves the child's balance but leaves its code in place.
    function destroyChild(DemoChild child, address payable recipient) external {
        child.destroy(recipient);
    }

    /// Succeeds although the call tree below it reverts.
    function probe(uint256 depth) external {
        try this.descend(depth) {} catch (bytes memory reason) {
            emit RevertCaught(depth, reason);
        }
    }

    /// Calls itself `depth` times, then reverts; the events emitted on the way down are discarded.
    function descend(uint256 depth) external {
        emit Descended(depth);
        if (depth == 0) revert("reached the bottom of the call tree");
        this.descend(depth - 1);
    }

    function _create2(bytes32 salt) private returns (DemoChild child) {
        child = new DemoChild{salt: salt, value: msg.value}();
        emit ChildCreated(address(child), true);
    }
}
