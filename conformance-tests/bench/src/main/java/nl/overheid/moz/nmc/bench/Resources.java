package nl.overheid.moz.nmc.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** The harness's SQL and templates under {@code bench/} on the class path. */
final class Resources {

    private Resources() {}

    static String text(String name) {
        try (InputStream in = Resources.class.getResourceAsStream("/bench/" + name)) {
            if (in == null) {
                throw new IllegalStateException("bench/" + name + " is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read bench/" + name, e);
        }
    }
}
