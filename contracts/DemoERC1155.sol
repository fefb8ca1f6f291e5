// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {ERC1155Burnable} from "@openzeppelin/contracts/token/ERC1155/extensions/ERC1155Burnable.sol";

/// Demo multi-token; anyone may mint. The URI is a data: JSON template in which
/// clients substitute {id}, so metadata resolves without network access.
contract DemoERC1155 is ERC1155, ERC1155Burnable {
    constructor()
        ERC1155('data:application/json,{"name":"Sextant Demo Item {id}","description":"A multi-token item minted on the Sextant demo chain."}')
    {}

    function mint(address to, uint256 id, uint256 amount, bytes calldata data) external {
        _mint(to, id, amount, data);
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata amounts, bytes calldata data) external {
        _mintBatch(to, ids, amounts, data);
    }
}
