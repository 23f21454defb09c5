package nl.overheid.moz.nmc.register;

import java.time.Duration;
import java.util.UUID;

/**
 * A message type: the NotifyNL template and service it is sent with and its policy.
 *
 * @param defaultValidity    geldig_tot = acceptance + this when the DV gives none (null: no limit)
 * @param maxFailures        NMC-internal failures before a send task is exhausted
 * @param processingActivity the processing activity (URI) every LDV record of its notifications names
 * @param profielDienstNaam  its dienst at the Profielservice (centralised regime): addresses scoped to it come
 *                           first; null when it has none
 */
public record Berichttype(
        String code,
        UUID notifyTemplateId,
        String notifyService,
        Duration defaultValidity,
        int maxFailures,
        String processingActivity,
        String profielDienstNaam) {}
