// The parts of Uniswap V2 the local stack's deploy (deploy/local/dex.ts) and the integration tests call: the
// router (swaps, quotes, liquidity), the factory (pair lookup) and WETH9. Human-readable signatures parsed by
// viem, so calls are typed without shipping the npm artifacts (a dev dependency, used only to deploy on the
// local chains). test/integration/dex-bridge.int.test.ts checks every signature here against the published
// artifacts' ABIs.
import { type Address, encodePacked, getCreate2Address, type Hex, keccak256, parseAbi } from "viem";

export const uniswapV2RouterAbi = parseAbi([
  "function factory() view returns (address)",
  "function WETH() view returns (address)",
  "function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[] amounts)",
  "function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)",
  "function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns (uint256[] amounts)",
  "function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256 amountA, uint256 amountB, uint256 liquidity)",
  "function addLiquidityETH(address token, uint256 amountTokenDesired, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline) payable returns (uint256 amountToken, uint256 amountETH, uint256 liquidity)",
]);

export const uniswapV2FactoryAbi = parseAbi([
  "function getPair(address tokenA, address tokenB) view returns (address pair)",
]);

export const uniswapV2PairAbi = parseAbi([
  "function token0() view returns (address)",
  "function token1() view returns (address)",
  "function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)",
]);

export const weth9Abi = parseAbi([
  "function deposit() payable",
  "function withdraw(uint256 wad)",
  "function balanceOf(address owner) view returns (uint256)",
  "function approve(address spender, uint256 amount) returns (bool)",
]);

/** UniswapV2Library.pairFor: the pair's CREATE2 address, from the factory and the pair's init-code hash. */
export function pairAddress(factory: Address, initCodeHash: Hex, tokenA: Address, tokenB: Address): Address {
  const [token0, token1] = tokenA.toLowerCase() < tokenB.toLowerCase() ? [tokenA, tokenB] : [tokenB, tokenA];
  return getCreate2Address({
    from: factory,
    salt: keccak256(encodePacked(["address", "address"], [token0, token1])),
    bytecodeHash: initCodeHash,
  });
}
