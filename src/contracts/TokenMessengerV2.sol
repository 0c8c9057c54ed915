// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

interface IMessageTransmitterV2 {
  function sendMessage(
    uint32 destinationDomain,
    bytes32 recipient,
    bytes32 destinationCaller,
    uint32 minFinalityThreshold,
    bytes calldata messageBody
  ) external;
}

/// @notice Circle FiatToken's minter surface (TestUSDC implements it).
interface IMintBurnToken {
  function mint(address to, uint256 amount) external;
  function burn(uint256 amount) external;
}

/**
 * @title TokenMessengerV2 (local, CCTP V2-shaped)
 * @notice Burns USDC on this chain and has it minted on another through MessageTransmitterV2, with Circle CCTP
 * V2's `depositForBurn` signature, `DepositForBurn` event and burn message body. Circle's TokenMinterV2 is
 * folded in: this contract is the token's minter and keeps the token pairs itself.
 *
 * Burn message body (abi.encodePacked, offsets in bytes):
 *   0 version uint32 (1) | 4 burnToken bytes32 | 36 mintRecipient bytes32 | 68 amount uint256 |
 *   100 messageSender bytes32 | 132 maxFee uint256 | 164 feeExecuted uint256 | 196 expirationBlock uint256 |
 *   228 hookData bytes
 * feeExecuted and expirationBlock leave this chain as 0; the attester fills them (the local one leaves both 0:
 * no fee, no expiry). On receive, `amount - feeExecuted` is minted to mintRecipient and the fee to feeRecipient.
 * hookData travels in the message; this messenger does not execute it (neither does Circle's).
 *
 * Not modelled: burn and mint limits, denylist, minimum fee, rescuer, pauser, proxies.
 */
contract TokenMessengerV2 is Ownable {
  using SafeERC20 for IERC20;

  uint32 public constant MESSAGE_BODY_VERSION = 1;
  /// @notice Below this finality threshold a message is refused on receive (V2's "unfinalized" floor).
  uint32 public constant TOKEN_MESSENGER_MIN_FINALITY_THRESHOLD = 1000;
  uint256 private constant BODY_LENGTH = 228;

  IMessageTransmitterV2 public immutable localMessageTransmitter;
  address public immutable feeRecipient;

  mapping(uint32 domain => bytes32 tokenMessenger) public remoteTokenMessengers;
  mapping(address token => bool) public isBurnToken;
  mapping(bytes32 remoteKey => address localToken) private localTokens;

  event DepositForBurn(
    address indexed burnToken,
    uint256 amount,
    address indexed depositor,
    bytes32 mintRecipient,
    uint32 destinationDomain,
    bytes32 destinationTokenMessenger,
    bytes32 destinationCaller,
    uint256 maxFee,
    uint32 indexed minFinalityThreshold,
    bytes hookData
  );
  event MintAndWithdraw(address indexed mintRecipient, uint256 amount, address indexed mintToken, uint256 feeCollected);
  event RemoteTokenMessengerAdded(uint32 domain, bytes32 tokenMessenger);
  event TokenPairLinked(address localToken, uint32 remoteDomain, bytes32 remoteToken);

  error ZeroAmount();
  error ZeroMintRecipient();
  error MaxFeeTooHigh(uint256 maxFee, uint256 amount);
  error NoRemoteTokenMessenger(uint32 domain);
  error NotBurnToken(address token);
  error EmptyHookData();
  error NotLocalMessageTransmitter(address caller);
  error UnknownSender(uint32 domain, bytes32 sender);
  error FinalityBelowFloor(uint32 finalityThresholdExecuted);
  error InvalidBody();
  error FeeTooHigh(uint256 feeExecuted, uint256 maxFee, uint256 amount);
  error MessageExpired(uint256 expirationBlock);
  error NoLocalToken(uint32 remoteDomain, bytes32 remoteToken);

  constructor(address transmitter, address feeRecipient_, address owner) Ownable(owner) {
    localMessageTransmitter = IMessageTransmitterV2(transmitter);
    feeRecipient = feeRecipient_;
  }

  function addRemoteTokenMessenger(uint32 domain, bytes32 tokenMessenger) external onlyOwner {
    remoteTokenMessengers[domain] = tokenMessenger;
    emit RemoteTokenMessengerAdded(domain, tokenMessenger);
  }

  /// @notice Makes `localToken` burnable here and mintable for burns of `remoteToken` on `remoteDomain`.
  function linkTokenPair(address localToken, uint32 remoteDomain, bytes32 remoteToken) external onlyOwner {
    isBurnToken[localToken] = true;
    localTokens[_remoteKey(remoteDomain, remoteToken)] = localToken;
    emit TokenPairLinked(localToken, remoteDomain, remoteToken);
  }

  function getLocalToken(uint32 remoteDomain, bytes32 remoteToken) external view returns (address) {
    return localTokens[_remoteKey(remoteDomain, remoteToken)];
  }

  function depositForBurn(
    uint256 amount,
    uint32 destinationDomain,
    bytes32 mintRecipient,
    address burnToken,
    bytes32 destinationCaller,
    uint256 maxFee,
    uint32 minFinalityThreshold
  ) external {
    _depositForBurn(amount, destinationDomain, mintRecipient, burnToken, destinationCaller, maxFee, minFinalityThreshold, "");
  }

  function depositForBurnWithHook(
    uint256 amount,
    uint32 destinationDomain,
    bytes32 mintRecipient,
    address burnToken,
    bytes32 destinationCaller,
    uint256 maxFee,
    uint32 minFinalityThreshold,
    bytes calldata hookData
  ) external {
    if (hookData.length == 0) revert EmptyHookData();
    _depositForBurn(
      amount, destinationDomain, mintRecipient, burnToken, destinationCaller, maxFee, minFinalityThreshold, hookData
    );
  }

  function handleReceiveFinalizedMessage(
    uint32 remoteDomain,
    bytes32 sender,
    uint32, /* finalityThresholdExecuted */
    bytes calldata messageBody
  ) external returns (bool) {
    _checkSource(remoteDomain, sender);
    _mintFromBody(remoteDomain, messageBody);
    return true;
  }

  function handleReceiveUnfinalizedMessage(
    uint32 remoteDomain,
    bytes32 sender,
    uint32 finalityThresholdExecuted,
    bytes calldata messageBody
  ) external returns (bool) {
    _checkSource(remoteDomain, sender);
    if (finalityThresholdExecuted < TOKEN_MESSENGER_MIN_FINALITY_THRESHOLD) {
      revert FinalityBelowFloor(finalityThresholdExecuted);
    }
    _mintFromBody(remoteDomain, messageBody);
    return true;
  }

  function _depositForBurn(
    uint256 amount,
    uint32 destinationDomain,
    bytes32 mintRecipient,
    address burnToken,
    bytes32 destinationCaller,
    uint256 maxFee,
    uint32 minFinalityThreshold,
    bytes memory hookData
  ) private {
    if (amount == 0) revert ZeroAmount();
    if (mintRecipient == bytes32(0)) revert ZeroMintRecipient();
    if (maxFee >= amount) revert MaxFeeTooHigh(maxFee, amount);
    bytes32 destinationTokenMessenger = remoteTokenMessengers[destinationDomain];
    if (destinationTokenMessenger == bytes32(0)) revert NoRemoteTokenMessenger(destinationDomain);
    if (!isBurnToken[burnToken]) revert NotBurnToken(burnToken);

    IERC20(burnToken).safeTransferFrom(msg.sender, address(this), amount);
    IMintBurnToken(burnToken).burn(amount);

    bytes memory body = abi.encodePacked(
      MESSAGE_BODY_VERSION,
      bytes32(uint256(uint160(burnToken))),
      mintRecipient,
      amount,
      bytes32(uint256(uint160(msg.sender))),
      maxFee,
      uint256(0), // feeExecuted: set by the attester
      uint256(0), // expirationBlock: set by the attester
      hookData
    );
    localMessageTransmitter.sendMessage(
      destinationDomain, destinationTokenMessenger, destinationCaller, minFinalityThreshold, body
    );
    emit DepositForBurn(
      burnToken,
      amount,
      msg.sender,
      mintRecipient,
      destinationDomain,
      destinationTokenMessenger,
      destinationCaller,
      maxFee,
      minFinalityThreshold,
      hookData
    );
  }

  function _checkSource(uint32 remoteDomain, bytes32 sender) private view {
    if (msg.sender != address(localMessageTransmitter)) revert NotLocalMessageTransmitter(msg.sender);
    bytes32 known = remoteTokenMessengers[remoteDomain];
    if (known == bytes32(0) || known != sender) revert UnknownSender(remoteDomain, sender);
  }

  function _mintFromBody(uint32 remoteDomain, bytes calldata body) private {
    if (body.length < BODY_LENGTH || uint32(bytes4(body[0:4])) != MESSAGE_BODY_VERSION) revert InvalidBody();
    bytes32 burnToken = bytes32(body[4:36]);
    address mintRecipient = address(uint160(uint256(bytes32(body[36:68]))));
    uint256 amount = uint256(bytes32(body[68:100]));
    uint256 maxFee = uint256(bytes32(body[132:164]));
    uint256 feeExecuted = uint256(bytes32(body[164:196]));
    uint256 expirationBlock = uint256(bytes32(body[196:228]));
    if (feeExecuted > maxFee || feeExecuted >= amount) revert FeeTooHigh(feeExecuted, maxFee, amount);
    if (expirationBlock != 0 && expirationBlock <= block.number) revert MessageExpired(expirationBlock);
    address token = localTokens[_remoteKey(remoteDomain, burnToken)];
    if (token == address(0)) revert NoLocalToken(remoteDomain, burnToken);

    IMintBurnToken(token).mint(mintRecipient, amount - feeExecuted);
    if (feeExecuted > 0) IMintBurnToken(token).mint(feeRecipient, feeExecuted);
    emit MintAndWithdraw(mintRecipient, amount - feeExecuted, token, feeExecuted);
  }

  function _remoteKey(uint32 remoteDomain, bytes32 remoteToken) private pure returns (bytes32) {
    return keccak256(abi.encodePacked(remoteDomain, remoteToken));
  }
}
