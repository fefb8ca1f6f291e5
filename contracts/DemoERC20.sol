// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Burnable} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Burnable.sol";

/// Fungible demo token; anyone may mint.
contract DemoERC20 is ERC20, ERC20Burnable {
    constructor() ERC20("Sextant Demo Token", "SDT") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
