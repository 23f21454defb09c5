/**
 * Steps 3 and 4, receipts and timers: NotifyNL's receipts are stored first ({@link
 * nl.overheid.moz.nmc.receipts.ReceiptStore}), then judged by a receipt task ({@code verwerken}) under the
 * notification's lock by one pure function ({@link nl.overheid.moz.nmc.receipts.ReceiptRules}).
 * Reconciliation ({@code reconcilieren}) asks NotifyNL about attempts without a receipt and feeds what it
 * finds through the same store; the finaliser ({@code vaststellen}) makes bezorgd final after the MEBV
 * period.
 */
package nl.overheid.moz.nmc.receipts;
