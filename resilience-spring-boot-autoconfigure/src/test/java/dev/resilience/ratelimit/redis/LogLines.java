package dev.resilience.ratelimit.redis;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The lines a class logs through {@link System.Logger} (which, with no other logging provider
 * installed, is {@code java.util.logging}), as "LEVEL message", while open.
 */
final class LogLines extends Handler implements AutoCloseable {

	private final Logger logger;

	private final Level level;

	private final List<String> lines = new CopyOnWriteArrayList<>();

	LogLines(Class<?> source) {
		// held here: java.util.logging keeps loggers only weakly
		this.logger = Logger.getLogger(source.getName());
		this.level = this.logger.getLevel();
		this.logger.setLevel(Level.ALL);
		this.logger.addHandler(this);
	}

	List<String> lines() {
		return List.copyOf(this.lines);
	}

	@Override
	public void publish(LogRecord record) {
		this.lines.add(record.getLevel() + " " + record.getMessage());
	}

	@Override
	public void flush() {
	}

	@Override
	public void close() {
		this.logger.removeHandler(this);
		this.logger.setLevel(this.level);
	}

}
