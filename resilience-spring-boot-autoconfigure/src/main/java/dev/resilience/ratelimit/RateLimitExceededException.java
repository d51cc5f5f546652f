package dev.resilience.ratelimit;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.resilience.internal.DurationText;
import dev.resilience.internal.Durations;

/**
 * Thrown when a rate limiter rejects a call. A Spring MVC application turns it into
 * {@code 429 Too Many Requests}.
 * <p>
 * The limiters of a {@link dev.resilience.ratelimit.store.StoreRateLimiterRegistry} throw it
 * without a stack trace unless
 * {@linkplain dev.resilience.ratelimit.store.StoreRateLimiterRegistry.Builder#stackTraces(boolean) asked for one}
 * ({@code resilience.rate-limit-stack-traces}): under a flood most calls are rejected, and
 * recording the stack of each would cost more than deciding it. What a rejection needs to be
 * understood, the limiter, the key and the delay, is in its fields and its message, which is only
 * formatted when read.
 * <p>
 * The message does not name the key unless the exception was made to
 * ({@linkplain dev.resilience.ratelimit.store.StoreRateLimiterRegistry.Builder#includeKeys(boolean) asked for}
 * with {@code resilience.include-keys}): keys are often API keys or user ids, and a message travels
 * far, into logs and into traces (an observation's error, OpenTelemetry's
 * {@code exception.message}). {@link #getKey()} returns it to the caller's code either way.
 */
public class RateLimitExceededException extends RuntimeException {

	// 2: the serialized form carries the whole decision (see writeObject).
	private static final long serialVersionUID = 2L;

	private final String limiterName;

	private final String key;

	private final Duration retryAfter;

	/** Whether the message names the key; false in a form written before it existed. */
	private final boolean keyInMessage;

	// A decision is not serializable (a store's holds its settings and bucket): writeObject writes
	// what its getters return, readObject rebuilds it from that. Set once, in the constructor or
	// in readObject.
	private transient RateLimitDecision decision;

	/**
	 * Creates the exception for a rejecting decision, with a stack trace and a message that does
	 * not name the key.
	 * @param decision the decision that rejected the call
	 */
	public RateLimitExceededException(RateLimitDecision decision) {
		this(decision, true);
	}

	/**
	 * Creates the exception for a rejecting decision, with a message that does not name the key.
	 * @param decision the decision that rejected the call
	 * @param stackTrace whether to record the stack trace of the rejected call
	 */
	public RateLimitExceededException(RateLimitDecision decision, boolean stackTrace) {
		this(decision, stackTrace, false);
	}

	/**
	 * Creates the exception for a rejecting decision.
	 * @param decision the decision that rejected the call
	 * @param stackTrace whether to record the stack trace of the rejected call
	 * @param keyInMessage whether the message names the key (keys stay out of messages unless
	 * {@code resilience.include-keys} is set)
	 */
	public RateLimitExceededException(RateLimitDecision decision, boolean stackTrace, boolean keyInMessage) {
		super(null, null, true, stackTrace);
		this.limiterName = decision.getLimiterName();
		this.key = decision.getKey();
		this.retryAfter = decision.getRetryAfter();
		this.keyInMessage = keyInMessage;
		this.decision = decision;
	}

	/**
	 * Returns what was rejected and when to retry, such as
	 * {@code Rate limiter 'partner-api' rejected the call; retry after 3s}; made to name the key,
	 * {@code Rate limiter 'partner-api' rejected the call for key 'k'; retry after 3s}.
	 * @return the message
	 */
	@Override
	public String getMessage() {
		return "Rate limiter '" + this.limiterName + "' rejected the call"
				+ ((this.keyInMessage && !this.key.isEmpty()) ? " for key '" + this.key + "'" : "") + "; retry after "
				+ DurationText.of(this.retryAfter);
	}


	/**
	 * Returns the name of the limiter that rejected the call.
	 * @return the limiter name
	 */
	public String getLimiterName() {
		return this.limiterName;
	}

	/**
	 * Returns the key whose bucket was exhausted; empty for a limiter's single shared bucket.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Returns how long to wait before a retry could succeed.
	 * @return the retry delay, never negative
	 */
	public Duration getRetryAfter() {
		return this.retryAfter;
	}

	/**
	 * Returns the full decision. After the exception was serialized and read back (Java
	 * serialization), it is a copy that answers every getter as the original did when it was
	 * written: its quotas are those the original reported then, no longer computed from a store's
	 * state, and a copy of a paused, concurrency-limited or reserving decision still says so.
	 * @return the decision that rejected the call
	 */
	public RateLimitDecision getDecision() {
		return this.decision;
	}

	/**
	 * Writes the fields, then the decision as its getters describe it: whether it permitted, its
	 * wait, whether it lacked only a concurrency permit, the calls in flight and their limit, the
	 * pause, and each quota (type, quota, window, remaining, reset).
	 * @param out the stream
	 * @throws IOException if it cannot be written
	 * @serialData the decision's parts, as above, after the default fields
	 */
	private void writeObject(ObjectOutputStream out) throws IOException {
		out.defaultWriteObject();
		RateLimitDecision decided = this.decision;
		out.writeBoolean(decided.isPermitted());
		out.writeLong(Durations.saturatedNanos(decided.getWait()));
		out.writeBoolean(decided.isConcurrencyLimited());
		out.writeInt(decided.getInFlight());
		out.writeInt(decided.getMaxConcurrent());
		out.writeLong(Durations.saturatedNanos(decided.getPause()));
		List<RateLimitDecision.Quota> quotas = decided.getQuotas();
		out.writeInt(quotas.size());
		for (RateLimitDecision.Quota quota : quotas) {
			out.writeUTF(quota.type().name());
			out.writeLong(quota.quota());
			out.writeObject(quota.window());
			out.writeLong(quota.remaining());
			out.writeObject(quota.reset());
		}
	}

	/**
	 * Reads what {@link #writeObject} wrote and rebuilds the decision from it.
	 * @param in the stream
	 * @throws IOException if it cannot be read or does not describe a decision
	 * @throws ClassNotFoundException if a class it holds is missing
	 */
	private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
		in.defaultReadObject();
		boolean permitted = in.readBoolean();
		long waitNanos = in.readLong();
		boolean concurrencyLimited = in.readBoolean();
		int inFlight = in.readInt();
		int maxConcurrent = in.readInt();
		long pauseNanos = in.readLong();
		int size = in.readInt();
		if (size < 0 || this.limiterName == null || this.key == null || this.retryAfter == null) {
			throw new InvalidObjectException("Not a RateLimitExceededException written by this class");
		}
		List<RateLimitDecision.Quota> quotas = new ArrayList<>(Math.min(size, 16));
		try {
			for (int i = 0; i < size; i++) {
				quotas.add(new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.valueOf(in.readUTF()), in.readLong(),
						(Duration) in.readObject(), in.readLong(), (Duration) in.readObject()));
			}
		}
		catch (IllegalArgumentException | ClassCastException ex) {
			InvalidObjectException invalid = new InvalidObjectException("A quota of the decision cannot be read");
			invalid.initCause(ex);
			throw invalid;
		}
		this.decision = RateLimitDecision.restored(this.limiterName, this.key, permitted, waitNanos,
				Durations.saturatedNanos(this.retryAfter), concurrencyLimited, inFlight, maxConcurrent, pauseNanos, quotas);
	}

}
