// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice A plain ERC-20 for local chains (the stack's "TestDAI", 18 decimals): the non-USDC token that deposits
/// are swapped from through the Uniswap V2 pools. Minted by the owner on demand.
contract TestERC20 is ERC20, Ownable {
  uint8 private immutable DECIMALS;

  constructor(string memory name, string memory symbol, uint8 decimals_, address owner)
    ERC20(name, symbol)
    Ownable(owner)
  {
    DECIMALS = decimals_;
  }

  function decimals() public view override returns (uint8) {
    return DECIMALS;
  }

  function mint(address to, uint256 amount) external onlyOwner {
    _mint(to, amount);
  }
}
