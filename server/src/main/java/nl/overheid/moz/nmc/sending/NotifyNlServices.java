package nl.overheid.moz.nmc.sending;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * NotifyNL per service: a berichttype's notifications are sent, and looked up, with the key of the service
 * its {@code notify_service} names (NotifyNL finds a template, and a notification, only within the service
 * whose key signed the call: another service answers 400 "Template not found" to a send and 404 to a lookup).
 * The services are fixed at start-up; {@code Nmc} refuses to start while a berichttype names one without
 * configuration, and the claims give a task of an unconfigured service no budget, so {@link #of} failing is a
 * bug, not a send-time outcome.
 */
public final class NotifyNlServices {

    private final Map<String, NotifyNl> byName;

    private NotifyNlServices(Map<String, NotifyNl> byName) {
        this.byName = Map.copyOf(byName);
    }

    /** The real clients, one per configured service. */
    public static NotifyNlServices from(NotifyNlSettings settings) {
        Map<String, NotifyNl> clients = new LinkedHashMap<>();
        settings.services().forEach((name, service) -> clients.put(name, new NotifyNlClient(settings, service)));
        return new NotifyNlServices(clients);
    }

    /** The same services, each answered by {@code client(name)} (tests put a stand-in in front). */
    public NotifyNlServices map(Function<String, NotifyNl> client) {
        Map<String, NotifyNl> replaced = new LinkedHashMap<>();
        byName.keySet().forEach(name -> replaced.put(name, client.apply(name)));
        return new NotifyNlServices(replaced);
    }

    /** The client of one service. */
    public NotifyNl of(String service) {
        NotifyNl client = byName.get(service);
        if (client == null) {
            throw new IllegalStateException("NotifyNL service " + service + " has no configuration");
        }
        return client;
    }

    /** The names of the configured services. */
    public Set<String> names() {
        return byName.keySet();
    }
}
