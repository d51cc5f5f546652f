package dev.resilience.sample.demo;

import java.util.List;

/**
 * What a run of the adaptive-concurrency demo came to: the limit over time while the partner's
 * capacity changed, and each phase summed up.
 *
 * @param limiter the client's limiter, {@code partner-adaptive}
 * @param workers the threads that called the partner at once
 * @param phases each phase of the run, in order
 * @param timeline the limit, the calls in flight and the requests inside the partner, every
 * {@value AdaptiveDemoController#SAMPLE_MILLIS} ms
 */
public record AdaptiveReport(String limiter, int workers, List<Phase> phases, List<Sample> timeline) {

	/**
	 * One phase: the partner's capacity, held for a while.
	 *
	 * @param capacity the requests the partner worked on at once
	 * @param seconds how long the phase lasted
	 * @param served the requests the partner served in the phase
	 * @param servedPerSecond {@code served / seconds}, to one decimal
	 * @param rejected the calls the limiter turned away after waiting its {@code max-wait}
	 * @param limitAtEnd the limit when the phase ended
	 * @param meanLimit the mean limit over the phase's second half, once it has settled
	 * @param meanInFlight the mean calls in flight through the limiter over the second half
	 * @param meanInsidePartner the mean requests inside the partner (queued or worked on) over the
	 * second half: more than {@code capacity} means a queue there
	 */
	public record Phase(int capacity, int seconds, long served, double servedPerSecond, long rejected, int limitAtEnd,
			double meanLimit, double meanInFlight, double meanInsidePartner) {
	}

	/**
	 * The state at one instant of the run.
	 *
	 * @param millis the time since the run began
	 * @param capacity the partner's capacity
	 * @param limit the limiter's limit on calls in flight
	 * @param inFlight the calls in flight through the limiter
	 * @param insidePartner the requests inside the partner, queued or worked on
	 */
	public record Sample(long millis, int capacity, int limit, int inFlight, int insidePartner) {
	}

}
