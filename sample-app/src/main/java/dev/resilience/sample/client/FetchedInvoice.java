package dev.resilience.sample.client;

import dev.resilience.sample.partner.Invoice;

/**
 * An invoice and the request that fetched it, as the partner counted (its
 * {@code X-Partner-Request}): {@code 2} for an invoice fetched at once after one failed request.
 *
 * @param invoice the invoice
 * @param partnerRequest how many requests for this invoice the partner had seen when it answered
 */
public record FetchedInvoice(Invoice invoice, int partnerRequest) {
}
