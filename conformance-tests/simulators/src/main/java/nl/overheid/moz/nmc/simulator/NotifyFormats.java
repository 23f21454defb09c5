package nl.overheid.moz.nmc.simulator;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/** Notify's textual formats: timestamps and the UUIDs it accepts in paths, bodies and query strings. */
final class NotifyFormats {

    /**
     * Notify's {@code DATETIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"}: UTC, always six fraction digits
     * (microseconds), a literal {@code Z}; for example {@code 2026-11-30T10:15:30.123456Z}.
     */
    private static final DateTimeFormatter TIMESTAMP =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    /** 32 hex digits, with or without the usual hyphens (Python's {@code uuid.UUID} accepts both). */
    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}");

    private NotifyFormats() {}

    /** Formats an instant the way Notify writes every timestamp in its API and callbacks. */
    static String timestamp(Instant instant) {
        return TIMESTAMP.format(instant.truncatedTo(ChronoUnit.MICROS));
    }

    /**
     * Parses a UUID strictly (unlike {@link UUID#fromString}, which accepts {@code 1-1-1-1-1}).
     *
     * @return the UUID, or empty when the text is not one
     */
    static Optional<UUID> parseUuid(String text) {
        if (text == null || !UUID_TEXT.matcher(text).matches()) {
            return Optional.empty();
        }
        String hex = text.replace("-", "");
        return Optional.of(new UUID(
                Long.parseUnsignedLong(hex.substring(0, 16), 16), Long.parseUnsignedLong(hex.substring(16), 16)));
    }
}
