package dev.resilience.sample.demo;

import java.util.concurrent.TimeUnit;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.resilience.sample.client.PartnerClient;
import dev.resilience.sample.partner.Export;

/**
 * {@code GET /demo/export} starts an export at the partner and waits until it is done: the client
 * polls its status with {@code @PollUntil}, each poll rate limited like every partner call.
 */
@RestController
@RequestMapping("/demo")
public class ExportDemoController {

	private final PartnerClient client;

	public ExportDemoController(PartnerClient client) {
		this.client = client;
	}

	@GetMapping("/export")
	public ExportReport export() {
		long start = System.nanoTime();
		Export started = this.client.startExport();
		Export done = this.client.exportStatus(started.id());
		return new ExportReport(done.id(), done.status(), done.statusChecks(),
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
	}

}
