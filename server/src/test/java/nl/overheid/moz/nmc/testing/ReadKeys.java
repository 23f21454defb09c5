package nl.overheid.moz.nmc.testing;

import io.helidon.config.Config;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.TreeSet;

/**
 * A {@link Config} that records every key whose value the code reads (any {@code as…} call, present or not, so
 * settings with a default count too): the keys the server actually reads, to hold the configuration reference to.
 */
public final class ReadKeys {

    private final Set<String> keys = new TreeSet<>();

    public Config wrap(Config config) {
        return (Config) Proxy.newProxyInstance(
                Config.class.getClassLoader(), new Class<?>[] {Config.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("as") || method.getName().equals("map")) {
                        synchronized (keys) {
                            keys.add(config.key().toString());
                        }
                    }
                    Object result;
                    try {
                        result = method.invoke(config, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    return result instanceof Config child
                                    && method.getReturnType().isAssignableFrom(Config.class)
                            ? wrap(child)
                            : result;
                });
    }

    public Set<String> keys() {
        synchronized (keys) {
            return Set.copyOf(keys);
        }
    }
}
