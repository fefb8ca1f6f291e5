// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Burnable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Burnable.sol";
import {Base64} from "@openzeppelin/contracts/utils/Base64.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// Demo NFT; anyone may mint. Metadata is built on-chain so it resolves without network access.
contract DemoERC721 is ERC721, ERC721Burnable {
    uint256 public nextTokenId = 1;

    constructor() ERC721("Sextant Demo NFT", "SNFT") {}

    function mint(address to) external returns (uint256 tokenId) {
        tokenId = nextTokenId++;
        _safeMint(to, tokenId);
    }

    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        string memory id = Strings.toString(tokenId);
        string memory svg = string.concat(
            "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 64 64'>",
            "<rect width='64' height='64' fill='#1e3a5f'/>",
            "<text x='32' y='40' font-size='20' text-anchor='middle' fill='#fff'>#", id, "</text></svg>"
        );
        string memory json = string.concat(
            '{"name":"Sextant Demo NFT #', id,
            '","description":"An NFT minted on the Sextant demo chain.",',
            '"image":"data:image/svg+xml;base64,', Base64.encode(bytes(svg)), '"}'
        );
        return string.concat("data:application/json;base64,", Base64.encode(bytes(json)));
    }
}
