package dev.resilience.sample.partner;

/**
 * An invoice as the partner API returns it.
 *
 * @param id the invoice number
 * @param amountCents the amount due, in cents
 */
public record Invoice(long id, long amountCents) {
}
