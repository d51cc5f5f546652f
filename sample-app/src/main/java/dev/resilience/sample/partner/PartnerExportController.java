package dev.resilience.sample.partner;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import dev.resilience.Ticker;

/**
 * The partner's asynchronous exports: {@code POST /partner/exports} starts one, and
 * {@code GET /partner/exports/{id}} reports it {@code PENDING} until
 * {@code sample.partner.export-delay} (2 s by default) has passed, then {@code DONE}. Each call
 * counts against the API key's quota, as every partner call does.
 */
@RestController
@RequestMapping("/partner/exports")
public class PartnerExportController {

	private final PartnerQuota quota;

	private final Ticker ticker;

	private final Duration exportDelay;

	private final Map<String, PreparedExport> exports = new ConcurrentHashMap<>();

	public PartnerExportController(PartnerQuota quota, Ticker ticker,
			@Value("${sample.partner.export-delay:2s}") Duration exportDelay) {
		this.quota = quota;
		this.ticker = ticker;
		this.exportDelay = exportDelay;
	}

	@PostMapping
	@ResponseStatus(HttpStatus.ACCEPTED)
	public Export start(@RequestHeader("X-Api-Key") String apiKey) {
		this.quota.charge(apiKey);
		String id = UUID.randomUUID().toString();
		PreparedExport export = new PreparedExport(this.ticker.read() + this.exportDelay.toNanos());
		this.exports.put(id, export);
		return new Export(id, "PENDING", 0);
	}

	@GetMapping("/{id}")
	public Export status(@PathVariable String id, @RequestHeader("X-Api-Key") String apiKey) {
		this.quota.charge(apiKey);
		PreparedExport export = this.exports.get(id);
		if (export == null) {
			throw new ResponseStatusException(HttpStatus.NOT_FOUND, "No export " + id);
		}
		int checks = export.checks.incrementAndGet();
		boolean done = this.ticker.read() - export.readyAt >= 0;
		return new Export(id, done ? "DONE" : "PENDING", checks);
	}

	/** An export being prepared: when it is ready, and how often its status was asked for. */
	private record PreparedExport(long readyAt, AtomicInteger checks) {

		PreparedExport(long readyAt) {
			this(readyAt, new AtomicInteger());
		}

	}

}
