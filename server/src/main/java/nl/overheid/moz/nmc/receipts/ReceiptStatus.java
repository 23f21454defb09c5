package nl.overheid.moz.nmc.receipts;

/** NotifyNL's delivery statuses as the receipt rules know them; anything else is {@link #UNKNOWN}. */
public enum ReceiptStatus {
    DELIVERED,
    PERMANENT_FAILURE,
    TEMPORARY_FAILURE,
    TECHNICAL_FAILURE,
    UNKNOWN;

    public static ReceiptStatus of(String notifyStatus) {
        return switch (notifyStatus == null ? "" : notifyStatus) {
            case "delivered" -> DELIVERED;
            case "permanent-failure" -> PERMANENT_FAILURE;
            case "temporary-failure" -> TEMPORARY_FAILURE;
            case "technical-failure" -> TECHNICAL_FAILURE;
            default -> UNKNOWN;
        };
    }

    public boolean failure() {
        return this == PERMANENT_FAILURE || this == TEMPORARY_FAILURE || this == TECHNICAL_FAILURE;
    }
}
