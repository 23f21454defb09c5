/**
 * The HTTP edge, and the only package that speaks HTTP: handlers extend the services generated from
 * {@code api-spec/} (the generated code lives in {@code api.generated}), bodies are validated against the
 * published schemas ({@link nl.overheid.moz.nmc.api.RequestSchemas}, all errors at once), DV calls are
 * authenticated ({@link nl.overheid.moz.nmc.api.DvAuthenticator}), and every refusal becomes an RFC 9457
 * problem ({@link nl.overheid.moz.nmc.api.ProblemException}, {@link nl.overheid.moz.nmc.api.DomainProblems})
 * with {@code API-Version}. No class outside this package (but the composition root) imports it.
 */
package nl.overheid.moz.nmc.api;
