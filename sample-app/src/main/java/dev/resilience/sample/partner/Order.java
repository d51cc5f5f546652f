package dev.resilience.sample.partner;

/**
 * An order as the partner API returns it.
 *
 * @param id the order id
 * @param customer the customer the order belongs to
 * @param status the order's status
 */
public record Order(long id, String customer, String status) {
}
