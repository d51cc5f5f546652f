package dev.resilience.pool;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/** An executor service that runs each task on the thread that submits it, until shut down. */
final class DirectExecutor extends AbstractExecutorService {

	private volatile boolean shutdown;

	@Override
	public void execute(Runnable command) {
		if (this.shutdown) {
			throw new RejectedExecutionException("shut down");
		}
		command.run();
	}

	@Override
	public void shutdown() {
		this.shutdown = true;
	}

	@Override
	public List<Runnable> shutdownNow() {
		this.shutdown = true;
		return List.of();
	}

	@Override
	public boolean isShutdown() {
		return this.shutdown;
	}

	@Override
	public boolean isTerminated() {
		return this.shutdown;
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		return this.shutdown;
	}

}
