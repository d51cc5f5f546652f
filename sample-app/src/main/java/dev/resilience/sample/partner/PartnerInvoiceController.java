package dev.resilience.sample.partner;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The partner's invoices, served by a partner that fails now and then, predictably so that the
 * demo and its test can tell what happens: the first request for an invoice whose number is a
 * multiple of 4 is answered {@code 503 Service Unavailable}; the first for a multiple of 5 is
 * answered {@code 429 Too Many Requests} with {@code Retry-After: 1}; invoice 11 is never served.
 * Every answer carries {@code X-Partner-Request}, the number of requests for that invoice so far,
 * so a client can show which attempt got through.
 */
@RestController
@RequestMapping("/partner/invoices")
public class PartnerInvoiceController {

	/** The header that tells how many requests for the invoice the partner has seen, this one included. */
	public static final String REQUEST_HEADER = "X-Partner-Request";

	private final Map<Long, AtomicInteger> requests = new ConcurrentHashMap<>();

	@GetMapping("/{id}")
	public ResponseEntity<Invoice> invoice(@PathVariable long id) {
		int request = this.requests.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
		if (id == 11 || (request == 1 && id % 4 == 0)) {
			return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(REQUEST_HEADER, Integer.toString(request)).build();
		}
		if (request == 1 && id % 5 == 0) {
			return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
				.header(HttpHeaders.RETRY_AFTER, "1")
				.header(REQUEST_HEADER, Integer.toString(request))
				.build();
		}
		return ResponseEntity.ok().header(REQUEST_HEADER, Integer.toString(request)).body(new Invoice(id, 1_000 * id));
	}

}
