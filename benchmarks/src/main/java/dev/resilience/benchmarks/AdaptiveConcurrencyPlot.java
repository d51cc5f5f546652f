package dev.resilience.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

import javax.imageio.ImageIO;

import dev.resilience.benchmarks.AdaptiveConcurrencySimulation.Point;
import dev.resilience.benchmarks.AdaptiveConcurrencySimulation.Result;
import dev.resilience.benchmarks.AdaptiveConcurrencySimulation.Scenario;

/**
 * Draws {@link AdaptiveConcurrencySimulation}'s time series as a PNG with {@code java.awt},
 * headless: three panels over the same time axis (the limit in force, the requests inside the
 * partner, the calls completed per second), the adaptive limit against the fixed ones, and the
 * partner's capacity as a dashed line.
 */
final class AdaptiveConcurrencyPlot {

	private static final int WIDTH = 1200;

	private static final int PANEL_HEIGHT = 260;

	private static final int LEFT = 80;

	private static final int RIGHT = 200;

	private static final int TOP = 50;

	private static final int GAP = 40;

	private static final List<Series> SERIES = List.of(
			new Series(AdaptiveConcurrencySimulation.ADAPTIVE, new Color(0x1f77b4), 2.5f),
			new Series(AdaptiveConcurrencySimulation.FIXED_HIGH, new Color(0xd62728), 1.5f),
			new Series(AdaptiveConcurrencySimulation.FIXED_LOW, new Color(0x2ca02c), 1.5f));

	private static final Color CAPACITY = new Color(0x555555);

	private AdaptiveConcurrencyPlot() {
	}

	static void write(Scenario scenario, List<Result> results, Path png) throws IOException {
		BufferedImage image = render(scenario, results);
		ImageIO.write(image, "png", png.toFile());
	}

	static BufferedImage render(Scenario scenario, List<Result> results) {
		System.setProperty("java.awt.headless", "true");
		int height = TOP + 3 * PANEL_HEIGHT + 2 * GAP + 50;
		BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
		Graphics2D g = image.createGraphics();
		try {
			g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
			g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
			g.setColor(Color.WHITE);
			g.fillRect(0, 0, WIDTH, height);
			g.setColor(Color.BLACK);
			g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
			g.drawString(String.format(Locale.ROOT,
					"max-concurrent: adaptive, %d callers, a partner serving 'capacity' requests at once, %d ms each (simulated)",
					scenario.callers(), scenario.service().toMillis()), LEFT, 28);
			double seconds = scenario.length().toNanos() / 1e9;
			double serviceSeconds = scenario.service().toNanos() / 1e9;
			panel(g, results, 0, seconds, "limit in force", Point::limit, (point) -> point.capacity());
			panel(g, results, 1, seconds, "requests inside the partner", Point::inside, (point) -> point.capacity());
			panel(g, results, 2, seconds, "completed per second", Point::throughput,
					(point) -> point.capacity() / serviceSeconds);
			g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
			g.setColor(Color.BLACK);
			int axisY = TOP + 3 * PANEL_HEIGHT + 2 * GAP + 35;
			g.drawString("seconds (virtual time)", LEFT + (WIDTH - LEFT - RIGHT) / 2 - 60, axisY);
		}
		finally {
			g.dispose();
		}
		return image;
	}

	/** One panel: the contenders' values, the capacity's reference dashed, a legend on the right. */
	private static void panel(Graphics2D g, List<Result> results, int index, double seconds, String title,
			ToDoubleFunction<Point> value, ToDoubleFunction<Point> reference) {
		int top = TOP + index * (PANEL_HEIGHT + GAP);
		int width = WIDTH - LEFT - RIGHT;
		double max = 0;
		for (Series series : SERIES) {
			for (Point point : AdaptiveConcurrencySimulation.find(results, series.name()).points()) {
				max = Math.max(max, Math.max(value.applyAsDouble(point), reference.applyAsDouble(point)));
			}
		}
		double top10 = niceCeiling(max * 1.05);
		// frame, grid and labels
		g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
		for (int i = 0; i <= 4; i++) {
			double v = top10 * i / 4;
			int y = top + PANEL_HEIGHT - (int) Math.round(PANEL_HEIGHT * v / top10);
			g.setColor(new Color(0xe5e5e5));
			g.drawLine(LEFT, y, LEFT + width, y);
			g.setColor(Color.DARK_GRAY);
			String label = (v == Math.rint(v)) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v);
			g.drawString(label, LEFT - 8 - g.getFontMetrics().stringWidth(label), y + 4);
		}
		int tick = (seconds > 60) ? 10 : 5;
		for (int s = 0; s <= seconds; s += tick) {
			int x = LEFT + (int) Math.round(width * s / seconds);
			g.setColor(new Color(0xf0f0f0));
			g.drawLine(x, top, x, top + PANEL_HEIGHT);
			g.setColor(Color.DARK_GRAY);
			String label = String.valueOf(s);
			g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, top + PANEL_HEIGHT + 15);
		}
		g.setColor(Color.BLACK);
		g.drawRect(LEFT, top, width, PANEL_HEIGHT);
		g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
		g.drawString(title, LEFT + 6, top - 6);
		// the capacity, dashed
		List<Point> adaptive = AdaptiveConcurrencySimulation.find(results, AdaptiveConcurrencySimulation.ADAPTIVE).points();
		line(g, adaptive, seconds, top, top10, reference, CAPACITY,
				new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] { 6, 5 }, 0));
		// fixed first, the adaptive limit on top
		for (int i = SERIES.size() - 1; i >= 0; i--) {
			Series series = SERIES.get(i);
			line(g, AdaptiveConcurrencySimulation.find(results, series.name()).points(), seconds, top, top10, value,
					series.color(), new BasicStroke(series.width()));
		}
		// legend
		g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
		int y = top + 18;
		for (Series series : SERIES) {
			legend(g, y, series.name(), series.color(), new BasicStroke(series.width()));
			y += 20;
		}
		legend(g, y, (index == 2) ? "capacity ÷ service time" : "partner's capacity", CAPACITY,
				new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] { 6, 5 }, 0));
	}

	private static void line(Graphics2D g, List<Point> points, double seconds, int top, double max,
			ToDoubleFunction<Point> value, Color color, Stroke stroke) {
		int width = WIDTH - LEFT - RIGHT;
		Path2D.Double path = new Path2D.Double();
		boolean first = true;
		for (Point point : points) {
			double x = LEFT + width * point.seconds() / seconds;
			double y = top + PANEL_HEIGHT - PANEL_HEIGHT * Math.min(value.applyAsDouble(point), max) / max;
			if (first) {
				path.moveTo(x, y);
				first = false;
			}
			else {
				path.lineTo(x, y);
			}
		}
		g.setColor(color);
		g.setStroke(stroke);
		g.draw(path);
		g.setStroke(new BasicStroke(1));
	}

	private static void legend(Graphics2D g, int y, String name, Color color, Stroke stroke) {
		int x = WIDTH - RIGHT + 15;
		g.setColor(color);
		g.setStroke(stroke);
		g.drawLine(x, y - 4, x + 28, y - 4);
		g.setStroke(new BasicStroke(1));
		g.setColor(Color.BLACK);
		g.drawString(name, x + 34, y);
	}

	/** The smallest of 1, 2, 2.5, 5 times a power of ten at or above {@code value}. */
	static double niceCeiling(double value) {
		if (value <= 0) {
			return 1;
		}
		double power = Math.pow(10, Math.floor(Math.log10(value)));
		for (double step : new double[] { 1, 2, 2.5, 5, 10 }) {
			if (step * power >= value) {
				return step * power;
			}
		}
		return 10 * power;
	}

	private record Series(String name, Color color, float width) {
	}

}
