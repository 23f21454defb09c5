package nl.overheid.moz.nmc;

import io.helidon.config.Config;
import java.time.Clock;
import nl.overheid.moz.nmc.ldv.LdvClient;
import nl.overheid.moz.nmc.ldv.LdvSettings;
import nl.overheid.moz.nmc.ldv.ProcessingLog;
import nl.overheid.moz.nmc.profiel.Profielservice;
import nl.overheid.moz.nmc.profiel.ProfielserviceClient;
import nl.overheid.moz.nmc.profiel.ProfielserviceSettings;
import nl.overheid.moz.nmc.sending.NotifyNl;
import nl.overheid.moz.nmc.sending.NotifyNlServices;
import nl.overheid.moz.nmc.sending.NotifyNlSettings;

/**
 * The parties the NMC calls. {@link #from} builds the real clients from configuration (NotifyNL: one per
 * service); a test replaces one of them (e.g. a NotifyNL that holds its answer) and keeps the others.
 */
public record Parties(NotifyNlServices notifyNl, Profielservice profielservice, ProcessingLog ldv) {

    public static Parties from(Config config) {
        return new Parties(
                NotifyNlServices.from(NotifyNlSettings.from(config.get("notifynl"))),
                new ProfielserviceClient(ProfielserviceSettings.from(config.get("profielservice")), Clock.systemUTC()),
                new LdvClient(LdvSettings.from(config.get("ldv"))));
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
