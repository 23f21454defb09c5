/**
 * The Profielservice (centralised regime): the e-mail address of a business by its identifying number,
 * looked up inside the send task and never stored, and the idempotent report of an address that bounced
 * permanently ({@code ongeldig-melden}). The client is generated from {@code api-spec/profielservice.yaml}.
 */
package nl.overheid.moz.nmc.profiel;
