package nl.overheid.moz.nmc.api;

/** Names of fields in a problem's {@code errors}: JSON pointers, also of a part of a larger body. */
final class JsonPointers {

    private JsonPointers() {}

    /** One reference token of a pointer (RFC 6901): {@code ~} as {@code ~0}, {@code /} as {@code ~1}. */
    static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }

    /** {@code name} (a pointer into a part) as a pointer into the whole body, the part being at {@code pointer}. */
    static String under(String pointer, String name) {
        if (pointer.isEmpty()) {
            return name;
        }
        return name.isEmpty() || name.equals("/") ? pointer : pointer + (name.startsWith("/") ? name : "/" + name);
    }
}
