package nl.overheid.moz.nmc.register;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How NotifyNL matches a personalisation key to a template's placeholder: notifications-utils' {@code InsensitiveDict}
 * ({@code notifications_utils/insensitive_dict.py}, alphagov/notifications-utils 0352d20, which NotifyNL builds on):
 * {@code make_key} removes spaces, underscores and hyphens and lowers the case, and of two keys that meet there the
 * later one overwrites the earlier. One rule for the check of a template's placeholders ({@code sending/Templates})
 * and of a request's own keys ({@code acceptance}).
 */
public final class PlaceholderNames {

    private PlaceholderNames() {}

    /** NotifyNL's {@code InsensitiveDict.make_key}: without spaces, underscores and hyphens, in lower case. */
    public static String key(String name) {
        return name.replace(" ", "").replace("_", "").replace("-", "").toLowerCase(Locale.ROOT);
    }

    /**
     * The names of {@code personalisation} that NotifyNL would read as one key with another (naam, Naam, na_am):
     * which value it then renders depends on the order it gets them in, nothing the DV can see.
     */
    public static List<String> sharingAKey(Map<String, String> personalisation) {
        if (personalisation == null) {
            return List.of();
        }
        Map<String, List<String>> byKey = new LinkedHashMap<>();
        personalisation
                .keySet()
                .forEach(name ->
                        byKey.computeIfAbsent(key(name), k -> new ArrayList<>()).add(name));
        return byKey.values().stream()
                .filter(names -> names.size() > 1)
                .flatMap(List::stream)
                .sorted()
                .toList();
    }
}
