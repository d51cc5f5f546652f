package dev.resilience.autoconfigure.actuate;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.json.JsonParseException;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.json.JsonWriter;
import org.springframework.util.StreamUtils;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Lets the write operation of the {@code resilience} endpoint take its properties as a nested
 * object, {@code {"properties": {"windows[0].limit": "5"}}}, the form a user writes by hand and
 * the one docs/runtime-changes.md shows: Actuator reads an operation's body as a map
 * of strings, so this filter hands the {@code properties} object on as a JSON string, which the
 * operation parses. Everything else about the request (the path, access, security) stays
 * Actuator's.
 */
class ResilienceWriteBodyFilter extends OncePerRequestFilter {

	private final String pathPrefix;

	/**
	 * Creates the filter.
	 * @param pathPrefix the path of the endpoint, such as {@code /actuator/resilience}
	 */
	ResilienceWriteBodyFilter(String pathPrefix) {
		this.pathPrefix = pathPrefix + "/";
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		if (!"POST".equals(request.getMethod())) {
			return true;
		}
		// Within the servlet's mapping: the DispatcherServlet may serve under a path of its own
		// (spring.mvc.servlet.path), which Actuator's paths do not include.
		String withinServlet = (request.getPathInfo() != null) ? request.getPathInfo() : request.getServletPath();
		return !withinServlet.startsWith(this.pathPrefix)
				&& !request.getRequestURI().startsWith(request.getContextPath() + this.pathPrefix);
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		byte[] body = StreamUtils.copyToByteArray(request.getInputStream());
		chain.doFilter(new BodyRequest(request, ResilienceWriteBody.flatten(body)), response);
	}

	/** A request whose body was read, and is read again from the bytes given. */
	private static final class BodyRequest extends HttpServletRequestWrapper {

		private final byte[] body;

		BodyRequest(HttpServletRequest request, byte[] body) {
			super(request);
			this.body = body;
		}

		@Override
		public int getContentLength() {
			return this.body.length;
		}

		@Override
		public long getContentLengthLong() {
			return this.body.length;
		}

		@Override
		public ServletInputStream getInputStream() {
			ByteArrayInputStream in = new ByteArrayInputStream(this.body);
			return new ServletInputStream() {

				@Override
				public int read() {
					return in.read();
				}

				@Override
				public int read(byte[] bytes, int offset, int length) {
					return in.read(bytes, offset, length);
				}

				@Override
				public boolean isFinished() {
					return in.available() == 0;
				}

				@Override
				public boolean isReady() {
					return true;
				}

				@Override
				public void setReadListener(ReadListener listener) {
					throw new UnsupportedOperationException("the body is read already");
				}

			};
		}

	}

	/** The body's rewriting, shared with the WebFlux side. */
	static final class ResilienceWriteBody {

		private ResilienceWriteBody() {
		}

		/**
		 * Returns the body with its {@code properties} object as a JSON string; any other body
		 * unchanged, for Actuator to answer as usual.
		 */
		static byte[] flatten(byte[] body) {
			Map<String, Object> parsed;
			try {
				parsed = JsonParserFactory.getJsonParser().parseMap(new String(body, StandardCharsets.UTF_8));
			}
			catch (IllegalArgumentException ex) {
				return body;
			}
			if (!(parsed.get("properties") instanceof Map<?, ?> properties)) {
				return body;
			}
			Map<String, Object> flat = new LinkedHashMap<>(parsed);
			flat.put("properties", JsonWriter.standard().writeToString(properties));
			return JsonWriter.standard().writeToString(flat).getBytes(StandardCharsets.UTF_8);
		}

		/**
		 * Parses the {@code properties} the filter handed on.
		 * @throws IllegalArgumentException if they are not a JSON object
		 */
		static Map<String, Object> parse(String properties) {
			try {
				return JsonParserFactory.getJsonParser().parseMap(properties);
			}
			catch (JsonParseException ex) {
				throw new IllegalArgumentException("properties must be a JSON object of property paths and values, "
						+ "such as {\"windows[0].limit\": \"5\"}, but was " + properties, ex);
			}
		}

	}

}
