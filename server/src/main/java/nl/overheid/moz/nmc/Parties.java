package nl.overheid.moz.nmc;

import io.helidon.config.Config;
import java.time.Clock;
import nl.overheid.moz.nmc.ldv.LdvSettings;
import nl.overheid.moz.nmc.ldv.ProcessingLog;
import nl.overheid.moz.nmc.ldv.SpanProcessingLog;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.profiel.Profielservice;
import nl.overheid.moz.nmc.profiel.ProfielserviceClient;
import nl.overheid.moz.nmc.profiel.ProfielserviceSettings;
import nl.overheid.moz.nmc.sending.NotifyNl;
import nl.overheid.moz.nmc.sending.NotifyNlServices;
import nl.overheid.moz.nmc.sending.NotifyNlSettings;

/**
 * The parties the NMC calls, and the processing log it writes before each call. {@link #from} builds the real clients
 * from configuration (NotifyNL: one per service; the log: the LDV store {@code ldv.store} names); a test replaces one
 * of them (e.g. a NotifyNL that holds its answer) and keeps the others.
 */
public record Parties(NotifyNlServices notifyNl, Profielservice profielservice, ProcessingLog ldv) {

    /**
     * The real ones; the processing log's records carry the times of {@code clock}, the NMC's. Its store is not
     * needed to start (it may be down: it is needed to send, not to accept).
     */
    public static Parties from(Config config, Clock clock) {
        NotifyNlSettings notifyNl = NotifyNlSettings.from(config.get("notifynl"));
        ProfielserviceSettings profielservice = ProfielserviceSettings.from(config.get("profielservice"));
        // The party each record names; its address unless configured (through FSC the address is the NMC's Outway).
        Config processor = config.get("ldv.processor");
        return new Parties(
                NotifyNlServices.from(notifyNl),
                new ProfielserviceClient(profielservice, Clock.systemUTC()),
                SpanProcessingLog.of(
                        LdvSettings.from(config.get("ldv")),
                        processor.get("notifynl").asString().orElse(notifyNl.baseUrl()),
                        processor.get("profielservice").asString().orElse(profielservice.baseUrl()),
                        clock,
                        // a view on the global registry, like the one the rest of the NMC counts in
                        new NmcMetrics()));
    }

    /** Every NotifyNL service answered by {@code replacement}. */
    public Parties withNotifyNl(NotifyNl replacement) {
        return new Parties(notifyNl.map(service -> replacement), profielservice, ldv);
    }

    public Parties withProfielservice(Profielservice replacement) {
        return new Parties(notifyNl, replacement, ldv);
    }

    public Parties withLdv(ProcessingLog replacement) {
        return new Parties(notifyNl, profielservice, replacement);
    }
}
