package dev.resilience.sample.partner;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The partner's slow endpoint, standing in for an LLM API: it answers a prompt, or with
 * {@code hang=true} accepts the request and then sends nothing for {@code sample.partner.hang-for}
 * (60 s by default), as a provider that has stopped responding does.
 * <p>
 * A hung request ends when the application begins to close, answered {@code 503}: the graceful
 * shutdown waits for requests in progress (up to 30 s), and would otherwise wait for this one.
 */
@RestController
@RequestMapping("/partner")
public class PartnerCompletionsController implements ApplicationListener<ContextClosedEvent> {

	private final Duration hangFor;

	/** Counted down when the application begins to close, before its web server stops. */
	private final CountDownLatch closing = new CountDownLatch(1);

	public PartnerCompletionsController(Environment environment) {
		this.hangFor = environment.getProperty("sample.partner.hang-for", Duration.class, Duration.ofSeconds(60));
	}

	@GetMapping("/completions")
	public Completion complete(@RequestParam String prompt, @RequestParam(defaultValue = "false") boolean hang)
			throws InterruptedException {
		if (hang && this.closing.await(this.hangFor.toNanos(), TimeUnit.NANOSECONDS)) {
			throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, "The partner is shutting down");
		}
		return new Completion(prompt, "echo: " + prompt);
	}

	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		this.closing.countDown();
	}

	/**
	 * The partner's answer to a prompt.
	 *
	 * @param prompt the prompt
	 * @param text the completion
	 */
	public record Completion(String prompt, String text) {
	}

}
