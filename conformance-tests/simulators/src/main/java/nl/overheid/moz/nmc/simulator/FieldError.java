package nl.overheid.moz.nmc.simulator;

/**
 * One validation error of a 400 problem ({@code errors[]}), in the NMC's own convention: {@code name} is a JSON
 * pointer into the body (e.g. {@code /identificerendNummer}) or a header name, {@code code} the violated JSON
 * Schema keyword ({@code required}, {@code pattern}, {@code enum}, …), {@code reason} a Dutch sentence built
 * from the contract only. No part of it repeats a value from the request.
 */
record FieldError(String name, String code, String reason) {}
