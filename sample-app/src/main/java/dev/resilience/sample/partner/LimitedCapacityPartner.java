package dev.resilience.sample.partner;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * A partner of limited capacity, standing in for a service that serves a few requests at once (an
 * LLM provider's GPUs, a database's connections): it works on at most {@link #setCapacity
 * capacity} requests at a time, each for {@code sample.partner.service-time} (25 ms by default),
 * and queues the others in order of arrival, so a request that finds the partner full takes
 * longer, however many are sent. The capacity can be changed while requests are in flight: the
 * adaptive-concurrency demo lowers and raises it.
 * <p>
 * Unlike the sample's other partners, it is called in the process, not over HTTP: a call's latency
 * is then the partner's queue and work alone, as for a remote partner whose network is steady,
 * and not this machine's HTTP stack, which on a busy machine can take longer than the work.
 */
@Component
public class LimitedCapacityPartner {

	private final long serviceMillis;

	/** Queues the requests in order of arrival; guards the counts below. */
	private final ReentrantLock lock = new ReentrantLock(true);

	private final Condition free = this.lock.newCondition();

	private int capacity = 8;

	/** The requests being worked on. */
	private int working;

	/** The requests inside the partner: queued or worked on. */
	private int inside;

	private final AtomicLong served = new AtomicLong();

	public LimitedCapacityPartner(Environment environment) {
		this.serviceMillis = environment
			.getProperty("sample.partner.service-time", Duration.class, Duration.ofMillis(25))
			.toMillis();
	}

	/**
	 * Serves one request: waits for its turn, then works on it.
	 * @return the request's number among those served
	 * @throws InterruptedException if interrupted while queued or worked on
	 */
	public long work() throws InterruptedException {
		this.lock.lock();
		try {
			this.inside++;
			try {
				while (this.working >= this.capacity) {
					this.free.await();
				}
			}
			catch (InterruptedException ex) {
				this.inside--;
				throw ex;
			}
			this.working++;
		}
		finally {
			this.lock.unlock();
		}
		try {
			Thread.sleep(this.serviceMillis);
		}
		finally {
			this.lock.lock();
			try {
				this.working--;
				this.inside--;
				this.free.signal();
			}
			finally {
				this.lock.unlock();
			}
		}
		return this.served.incrementAndGet();
	}

	/**
	 * Sets how many requests the partner works on at once; queued requests start at once when it
	 * grows.
	 * @param capacity the requests worked on at once, at least 1
	 */
	public void setCapacity(int capacity) {
		if (capacity < 1) {
			throw new IllegalArgumentException("capacity must be at least 1 but was " + capacity);
		}
		this.lock.lock();
		try {
			this.capacity = capacity;
			this.free.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns how many requests are inside the partner now, queued or worked on.
	 * @return the requests inside
	 */
	public int inside() {
		this.lock.lock();
		try {
			return this.inside;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns how many requests the partner served since it started.
	 * @return the requests served
	 */
	public long served() {
		return this.served.get();
	}

}
