package dev.resilience.sample.partner;

import java.time.Duration;

import org.springframework.core.env.Environment;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The partner's slow endpoint, standing in for an LLM API: it answers a prompt, or with
 * {@code hang=true} accepts the request and then sends nothing for {@code sample.partner.hang-for}
 * (60 s by default), as a provider that has stopped responding does.
 */
@RestController
@RequestMapping("/partner")
public class PartnerCompletionsController {

	private final Duration hangFor;

	public PartnerCompletionsController(Environment environment) {
		this.hangFor = environment.getProperty("sample.partner.hang-for", Duration.class, Duration.ofSeconds(60));
	}

	@GetMapping("/completions")
	public Completion complete(@RequestParam String prompt, @RequestParam(defaultValue = "false") boolean hang)
			throws InterruptedException {
		if (hang) {
			Thread.sleep(this.hangFor.toMillis());
		}
		return new Completion(prompt, "echo: " + prompt);
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
