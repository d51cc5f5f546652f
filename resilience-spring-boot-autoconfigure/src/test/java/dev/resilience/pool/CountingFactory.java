package dev.resilience.pool;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A {@link ConnectionFactory} of numbered connections that counts what it creates and destroys
 * and records on which thread each destroy ran.
 */
final class CountingFactory implements ConnectionFactory<Integer> {

	final AtomicInteger created = new AtomicInteger();

	final AtomicInteger destroyed = new AtomicInteger();

	final AtomicInteger validated = new AtomicInteger();

	final Set<Integer> destroyedIds = ConcurrentHashMap.newKeySet();

	final List<String> destroyThreads = new CopyOnWriteArrayList<>();

	private volatile Predicate<Integer> valid = (connection) -> true;

	private volatile Runnable onCreate = () -> {
	};

	private volatile Runnable onDestroy = () -> {
	};

	CountingFactory validWhen(Predicate<Integer> valid) {
		this.valid = valid;
		return this;
	}

	CountingFactory onCreate(Runnable onCreate) {
		this.onCreate = onCreate;
		return this;
	}

	CountingFactory onDestroy(Runnable onDestroy) {
		this.onDestroy = onDestroy;
		return this;
	}

	@Override
	public Integer create() {
		this.onCreate.run();
		return this.created.incrementAndGet();
	}

	@Override
	public boolean validate(Integer connection) {
		this.validated.incrementAndGet();
		return this.valid.test(connection);
	}

	@Override
	public void destroy(Integer connection) {
		this.onDestroy.run();
		this.destroyedIds.add(connection);
		this.destroyThreads.add(Thread.currentThread().getName());
		this.destroyed.incrementAndGet();
	}

}
