package dev.waybill.samples.orders;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.orm.jpa.JpaSystemException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.exc.InvalidFormatException;

/**
 * Answers bad input with 400 and a problem detail whose {@code detail} names each bad field and
 * whose {@code errors} maps field to problem; a database out of reach with 503 and Retry-After.
 */
@RestControllerAdvice
class ApiErrors {

	private static final Log logger = LogFactory.getLog(ApiErrors.class);

	/**
	 * The database out of reach (a restart, a failover, connections ended; JPA reports a connection
	 * ended under its transaction as a JpaSystemException): nothing was committed, so the client may
	 * send the order again. One warning line, not a stack trace per request.
	 */
	@ExceptionHandler({ CannotCreateTransactionException.class, DataAccessResourceFailureException.class,
			TransientDataAccessException.class, TransactionSystemException.class, JpaSystemException.class })
	ResponseEntity<ProblemDetail> unavailable(RuntimeException ex) {
		logger.warn("Order request failed, the database is unavailable: " + ex.getMessage());
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				"The order database is unavailable; nothing was saved, try again");
		problem.setTitle("Service unavailable");
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "1").body(problem);
	}

	@ExceptionHandler
	ProblemDetail invalid(MethodArgumentNotValidException ex) {
		Map<String, String> errors = new LinkedHashMap<>();
		for (FieldError error : ex.getBindingResult().getFieldErrors()) {
			errors.merge(error.getField(), String.valueOf(error.getDefaultMessage()), (a, b) -> a + "; " + b);
		}
		return badRequest(errors);
	}

	@ExceptionHandler
	ProblemDetail unreadable(HttpMessageNotReadableException ex) {
		if (ex.getCause() instanceof JacksonException jackson && !jackson.getPath().isEmpty()) {
			String field = jackson.getPath()
				.stream()
				.map((reference) -> (reference.getPropertyName() != null) ? reference.getPropertyName()
						: "[" + reference.getIndex() + "]")
				.collect(Collectors.joining("."));
			return badRequest(Map.of(field, unreadableValue(jackson)));
		}
		return badRequest(Map.of("body", "is not a JSON object of customer, totalCents and paymentMethod"));
	}

	@ExceptionHandler
	ProblemDetail typeMismatch(MethodArgumentTypeMismatchException ex) {
		String expected = (ex.getRequiredType() != null) ? ex.getRequiredType().getSimpleName() : "another type";
		return badRequest(Map.of(ex.getName(), "'" + ex.getValue() + "' is not a valid " + expected));
	}

	private static String unreadableValue(JacksonException ex) {
		if (ex instanceof InvalidFormatException format) {
			Class<?> target = format.getTargetType();
			String rule = (target != null && target.isEnum())
					? "must be one of " + Arrays.toString(target.getEnumConstants())
					: "must be a " + ((target != null) ? target.getSimpleName() : "value of another type");
			return "'" + format.getValue() + "' " + rule;
		}
		return "cannot be read: " + ex.getOriginalMessage();
	}

	private static ProblemDetail badRequest(Map<String, String> errors) {
		String detail = errors.entrySet()
			.stream()
			.map((entry) -> entry.getKey() + " " + entry.getValue())
			.collect(Collectors.joining(", "));
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, "Invalid order: " + detail);
		problem.setTitle("Bad request");
		problem.setProperty("errors", errors);
		return problem;
	}

}
