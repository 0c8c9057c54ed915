// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice Stand-in for USDC on local chains: 6 decimals, minted by the owner on demand.
contract TestUSDC is ERC20, Ownable {
  constructor(address owner) ERC20("Test USD Coin", "USDC") Ownable(owner) {}

  function decimals() public pure override returns (uint8) {
    return 6;
  }

  function mint(address to, uint256 amount) external onlyOwner {
    _mint(to, amount);
  }
}
