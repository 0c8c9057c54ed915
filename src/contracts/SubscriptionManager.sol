// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// Recurring pulls authorised by a payer-signed EIP-712 Mandate. The payer approves this contract on the
/// token once; the relayer then charges `amount` per period, at most once per period and only while that
/// period is the current one, splitting it between the platform fee, the signed app fee and the merchant.
/// The payer stops it for good with `cancel` (on chain) or a signed Cancel relayed by anyone.
contract SubscriptionManager is EIP712 {
    using SafeERC20 for IERC20;

    struct Mandate {
        address payer;
        address token;
        uint256 amount;
        uint256 period;
        uint256 start;
        address merchant;
        uint16 appFeeBps;
        address appFeeRecipient;
        bytes32 salt;
    }

    bytes32 public constant MANDATE_TYPEHASH = keccak256(
        "Mandate(address payer,address token,uint256 amount,uint256 period,uint256 start,address merchant,uint16 appFeeBps,address appFeeRecipient,bytes32 salt)"
    );
    bytes32 public constant CANCEL_TYPEHASH = keccak256("Cancel(bytes32 mandate)");

    /// The spec's cap on the platform fee: 1% (100 basis points).
    uint256 public constant MAX_FEE_BPS = 100;
    uint256 private constant BPS = 10_000;

    address public immutable RELAYER;
    address public immutable PLATFORM_FEE_RECIPIENT;

    /// digest => period index => charged. A mapping per period (not a counter) so a missed period stays
    /// missed without blocking the next one.
    mapping(bytes32 => mapping(uint256 => bool)) public charged;
    mapping(bytes32 => bool) public canceled;

    event Charged(
        bytes32 indexed mandate,
        uint256 indexed periodIndex,
        address indexed payer,
        uint256 amount,
        uint256 platformFee,
        uint256 appFee,
        uint256 merchantAmount
    );
    event Canceled(bytes32 indexed mandate);

    error NotRelayer();
    error NotPayer();
    error ZeroAddress();
    error InvalidMandate();
    error FeeTooHigh();
    error BadSignature();
    error MandateCanceled();
    error PeriodNotStarted();
    error PeriodOver();
    error AlreadyCharged();

    constructor(address relayer, address platformFeeRecipient) EIP712("SubscriptionManager", "1") {
        if (relayer == address(0) || platformFeeRecipient == address(0)) revert ZeroAddress();
        RELAYER = relayer;
        PLATFORM_FEE_RECIPIENT = platformFeeRecipient;
    }

    /// The EIP-712 digest the payer signs; the mandate's identity everywhere (events, storage, the service).
    function mandateDigest(Mandate calldata m) public view returns (bytes32) {
        return _hashTypedDataV4(
            keccak256(
                abi.encode(
                    MANDATE_TYPEHASH,
                    m.payer,
                    m.token,
                    m.amount,
                    m.period,
                    m.start,
                    m.merchant,
                    m.appFeeBps,
                    m.appFeeRecipient,
                    m.salt
                )
            )
        );
    }

    /// The digest of Cancel(mandate digest) the payer signs for the gasless cancel.
    function cancelDigest(bytes32 mandate) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(CANCEL_TYPEHASH, mandate)));
    }

    /// Pulls period `periodIndex`'s amount from the payer. `feeBps` is the platform fee the service resolves
    /// per charge, capped on chain; the app fee and every recipient are signed in the mandate.
    function charge(Mandate calldata m, bytes calldata sig, uint256 periodIndex, uint256 feeBps)
        external
        returns (bytes32 digest)
    {
        if (msg.sender != RELAYER) revert NotRelayer();
        if (m.amount == 0 || m.period == 0) revert InvalidMandate();
        if (m.merchant == address(0) || (m.appFeeBps > 0 && m.appFeeRecipient == address(0))) {
            revert ZeroAddress();
        }
        if (feeBps > MAX_FEE_BPS || feeBps + m.appFeeBps > BPS) revert FeeTooHigh();
        digest = mandateDigest(m);
        if (!SignatureChecker.isValidSignatureNow(m.payer, digest, sig)) revert BadSignature();
        if (canceled[digest]) revert MandateCanceled();
        // start + i * period <= now < start + (i + 1) * period: a period is charged while it is current,
        // so a relayer that was down cannot later pull several missed periods at once.
        uint256 periodStart = m.start + periodIndex * m.period;
        if (block.timestamp < periodStart) revert PeriodNotStarted();
        if (block.timestamp >= periodStart + m.period) revert PeriodOver();
        if (charged[digest][periodIndex]) revert AlreadyCharged();
        charged[digest][periodIndex] = true;

        uint256 platformFee = (m.amount * feeBps) / BPS;
        uint256 appFee = (m.amount * m.appFeeBps) / BPS;
        uint256 merchantAmount = m.amount - platformFee - appFee;
        IERC20 token = IERC20(m.token);
        if (platformFee > 0) token.safeTransferFrom(m.payer, PLATFORM_FEE_RECIPIENT, platformFee);
        if (appFee > 0) token.safeTransferFrom(m.payer, m.appFeeRecipient, appFee);
        if (merchantAmount > 0) token.safeTransferFrom(m.payer, m.merchant, merchantAmount);
        emit Charged(digest, periodIndex, m.payer, m.amount, platformFee, appFee, merchantAmount);
    }

    /// The payer cancels from its own account.
    function cancel(Mandate calldata m) external {
        if (msg.sender != m.payer) revert NotPayer();
        _cancel(mandateDigest(m));
    }

    /// Anyone relays the payer's signed Cancel (the service does, so the payer pays no gas).
    function cancelBySig(Mandate calldata m, bytes calldata payerSig) external {
        bytes32 digest = mandateDigest(m);
        if (!SignatureChecker.isValidSignatureNow(m.payer, cancelDigest(digest), payerSig)) {
            revert BadSignature();
        }
        _cancel(digest);
    }

    /// A second cancel reverts, so `Canceled` is emitted once per mandate whichever path came first.
    function _cancel(bytes32 digest) private {
        if (canceled[digest]) revert MandateCanceled();
        canceled[digest] = true;
        emit Canceled(digest);
    }
}
