package dev.resilience.observation;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;

/**
 * A handler that records, in order, every context it was asked about and every event signalled,
 * beside a {@link TestObservationRegistry}'s own: that no context was even offered proves that
 * nothing was made for an observation.
 */
public final class RecordingHandler implements ObservationHandler<Observation.Context> {

	private final List<Observation.Context> offered = new CopyOnWriteArrayList<>();

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final List<String> started = new CopyOnWriteArrayList<>();

	/**
	 * Makes a test registry with a recording handler.
	 * @param registry the registry to add the handler to
	 * @return the handler
	 */
	public static RecordingHandler on(TestObservationRegistry registry) {
		RecordingHandler handler = new RecordingHandler();
		registry.observationConfig().observationHandler(handler);
		return handler;
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		this.offered.add(context);
		return true;
	}

	@Override
	public void onStart(Observation.Context context) {
		this.started.add(context.getName());
	}

	@Override
	public void onEvent(Observation.Event event, Observation.Context context) {
		this.events.add(context.getName() + ": " + event.getName() + " " + event.getContextualName());
	}

	/**
	 * Returns the contexts offered, in order.
	 * @return the contexts
	 */
	public List<Observation.Context> offered() {
		return this.offered;
	}

	/**
	 * Returns the names of the observations started, in order.
	 * @return the names
	 */
	public List<String> started() {
		return this.started;
	}

	/**
	 * Returns the events, as {@code <observation>: <event> <contextual name>}.
	 * @return the events
	 */
	public List<String> events() {
		return this.events;
	}

}
