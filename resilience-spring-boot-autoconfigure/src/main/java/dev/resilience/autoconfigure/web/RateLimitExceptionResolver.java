package dev.resilience.autoconfigure.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.accept.ContentNegotiationStrategy;
import org.springframework.web.accept.HeaderContentNegotiationStrategy;
import org.springframework.web.method.ControllerAdviceBean;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.method.annotation.ExceptionHandlerMethodResolver;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.handler.HandlerExceptionResolverComposite;
import org.springframework.web.servlet.mvc.method.annotation.ExceptionHandlerExceptionResolver;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

import dev.resilience.ratelimit.RateLimitExceededException;

/**
 * Answers a rejection with the very 429 that Spring MVC's {@code @ExceptionHandler} resolution
 * would write through {@link RateLimitExceptionHandler}, without that resolution: the handler
 * sets the status and header fields, and the problem detail is written by the message converter
 * MVC would choose, in one write with its {@code Content-Length}.
 * <p>
 * Why: under a flood nearly every request is a rejection, and MVC's resolution (an invocable
 * handler method per exception, argument resolution, a reflective call, content negotiation over
 * every converter, the response-body advice chain) cost more than the rejection itself; shedding
 * load cost more than serving it. It only answers where the outcome is known to be the same, and
 * otherwise leaves the exception to MVC: the request accepts anything (no {@code Accept}, or
 * {@code *}{@code /*}) and negotiation reads only that header; the exception is a plain
 * {@link RateLimitExceededException} without a cause; neither the controller nor an advice
 * ordered before ours has an {@code @ExceptionHandler} for it (an application's own handler
 * wins); no {@link ResponseBodyAdvice} advice and no {@code ErrorResponse} interceptor could
 * change the body; and no other resolver sits between this one and MVC's.
 */
final class RateLimitExceptionResolver implements HandlerExceptionResolver, Ordered {

	/** Just before MVC's own resolvers (the {@code handlerExceptionResolver} composite, order 0). */
	static final int ORDER = -1;

	private final RateLimitExceptionHandler handler;

	// Read once, on the first rejection, when every resolver and advice exists: the converter to
	// write with, or none when this resolver must leave every rejection to MVC.
	private final SingletonSupplier<Optional<Writer>> writer;

	// Whether MVC would answer a rejection raised by a controller of this type with our handler.
	// Controllers are few, so this holds one entry per limited controller class.
	private final Map<Class<?>, Boolean> answeredByUs = new ConcurrentHashMap<>();

	RateLimitExceptionResolver(ApplicationContext context, RateLimitExceptionHandler handler) {
		this.handler = handler;
		this.writer = SingletonSupplier.of(() -> Optional.ofNullable(Writer.find(context, this)));
	}

	@Override
	public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
			@Nullable Object handler, Exception ex) {
		if (ex.getClass() != RateLimitExceededException.class || ex.getCause() != null
				|| !(handler instanceof HandlerMethod handlerMethod) || response.isCommitted()
				|| !acceptsAnything(request)) {
			return null;
		}
		Writer writer = this.writer.obtain().orElse(null);
		if (writer == null || !answeredByUs(writer, handlerMethod, (RateLimitExceededException) ex)) {
			return null;
		}
		ProblemDetail problem = this.handler.answerRateLimitExceeded((RateLimitExceededException) ex, response);
		if (problem.getInstance() == null) {
			problem.setInstance(URI.create(request.getRequestURI()));
		}
		try {
			writer.write(problem, response);
		}
		catch (IOException failure) {
			// As MVC does when its handler's answer cannot be written: the original exception goes on.
			return null;
		}
		return new ModelAndView();
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	private static boolean acceptsAnything(HttpServletRequest request) {
		String accept = request.getHeader(HttpHeaders.ACCEPT);
		return accept == null || accept.isEmpty() || accept.equals(MediaType.ALL_VALUE);
	}

	/** Read before computed, so that a rejection of a known controller allocates nothing here. */
	private boolean answeredByUs(Writer writer, HandlerMethod handlerMethod, RateLimitExceededException ex) {
		Boolean known = this.answeredByUs.get(handlerMethod.getBeanType());
		if (known != null) {
			return known;
		}
		boolean ours = writer.answeredByUs(handlerMethod, ex, this.handler);
		this.answeredByUs.put(handlerMethod.getBeanType(), ours);
		return ours;
	}

	/**
	 * MVC's resolver and the converter it would write a problem detail with.
	 *
	 * @param resolver MVC's {@code @ExceptionHandler} resolver
	 * @param converter the first converter that writes a problem detail as JSON
	 */
	private record Writer(ExceptionHandlerExceptionResolver resolver, HttpMessageConverter<Object> converter) {

		@SuppressWarnings("unchecked")
		static @Nullable Writer find(ApplicationContext context, HandlerExceptionResolver self) {
			List<HandlerExceptionResolver> resolvers = new ArrayList<>(BeanFactoryUtils
				.beansOfTypeIncludingAncestors(context, HandlerExceptionResolver.class, true, false)
				.values());
			AnnotationAwareOrderComparator.sort(resolvers);
			int next = resolvers.indexOf(self) + 1;
			if (next == 0 || next == resolvers.size()
					|| !(resolvers.get(next) instanceof HandlerExceptionResolverComposite composite)
					|| composite.getExceptionResolvers().isEmpty()
					|| !(composite.getExceptionResolvers().get(0) instanceof ExceptionHandlerExceptionResolver mvc)) {
				return null;
			}
			if (!mvc.getErrorResponseInterceptors().isEmpty() || hasResponseBodyAdvice(context)
					|| !onlyHeaderNegotiation(mvc)) {
				return null;
			}
			for (HttpMessageConverter<?> converter : mvc.getMessageConverters()) {
				if (converter.canWrite(ProblemDetail.class, MediaType.APPLICATION_PROBLEM_JSON)) {
					return new Writer(mvc, (HttpMessageConverter<Object>) converter);
				}
			}
			return null;
		}

		private static boolean hasResponseBodyAdvice(ApplicationContext context) {
			return ControllerAdviceBean.findAnnotatedBeans(context)
				.stream()
				.anyMatch((advice) -> advice.getBeanType() != null
						&& ResponseBodyAdvice.class.isAssignableFrom(advice.getBeanType()));
		}

		private static boolean onlyHeaderNegotiation(ExceptionHandlerExceptionResolver mvc) {
			List<ContentNegotiationStrategy> strategies = mvc.getContentNegotiationManager().getStrategies();
			return strategies.stream().allMatch(HeaderContentNegotiationStrategy.class::isInstance);
		}

		/** Finds the handler MVC would choose, as {@code ExceptionHandlerExceptionResolver} does. */
		boolean answeredByUs(HandlerMethod handlerMethod, RateLimitExceededException ex,
				RateLimitExceptionHandler ours) {
			Class<?> handlerType = handlerMethod.getBeanType();
			if (new ExceptionHandlerMethodResolver(handlerType).resolveMethodByThrowable(ex) != null) {
				return false;
			}
			if (Proxy.isProxyClass(handlerType)) {
				handlerType = AopUtils.getTargetClass(handlerMethod.getBean());
			}
			for (Map.Entry<ControllerAdviceBean, ExceptionHandlerMethodResolver> entry : this.resolver
				.getExceptionHandlerAdviceCache()
				.entrySet()) {
				if (entry.getKey().isApplicableToBeanType(handlerType)
						&& entry.getValue().resolveMethodByThrowable(ex) != null) {
					return entry.getKey().resolveBean() == ours && ours.getClass() == RateLimitExceptionHandler.class;
				}
			}
			return false;
		}

		void write(ProblemDetail problem, HttpServletResponse response) throws IOException {
			BufferedMessage message = new BufferedMessage();
			this.converter.write(problem, MediaType.APPLICATION_PROBLEM_JSON, message);
			MediaType contentType = message.getHeaders().getContentType();
			if (contentType != null) {
				response.setContentType(contentType.toString());
			}
			byte[] body = message.body.toByteArray();
			response.setContentLength(body.length);
			response.getOutputStream().write(body);
		}

	}

	/** A message written to memory, so that the response goes out in one write with its length. */
	private static final class BufferedMessage implements HttpOutputMessage {

		private final HttpHeaders headers = new HttpHeaders();

		private final ByteArrayOutputStream body = new ByteArrayOutputStream(256);

		@Override
		public OutputStream getBody() {
			return this.body;
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

	}

}
