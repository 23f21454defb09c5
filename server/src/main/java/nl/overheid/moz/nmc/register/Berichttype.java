package nl.overheid.moz.nmc.register;

import java.time.Duration;
import java.util.UUID;

/**
 * A message type: the NotifyNL template and service it is sent with and its policy.
 *
 * @param standaardGeldigheid geldig_tot = acceptance + this when the DV gives none (null: no limit)
 * @param maxPogingenteller NMC-internal failures before a send task is exhausted
 * @param verwerkingsactiviteit the processing activity (URI) every LDV record of its notifications names
 */
public record Berichttype(
        String code,
        UUID notifyTemplateId,
        String notifyService,
        Duration defaultValidity,
        int maxFailures,
        String processingActivity) {}
