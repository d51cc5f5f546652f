package dev.resilience.ratelimit;

/** A reservation with nothing to give back, see {@link Reservation#settled(RateLimitDecision)}. */
record SettledReservation(RateLimitDecision decision) implements Reservation {

	@Override
	public RateLimitDecision getDecision() {
		return this.decision;
	}

	@Override
	public void cancel() {
	}

	@Override
	public void release() {
	}

}
