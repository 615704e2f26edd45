package dev.waybill.samples.orders;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.exc.InvalidFormatException;

/**
 * Answers bad input with 400 and a problem detail whose {@code detail} names each bad field and
 * whose {@code errors} maps field to problem.
 */
@RestControllerAdvice
class ApiErrors {

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
