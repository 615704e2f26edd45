package dev.waybill.outbox.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@link UnknownWaybillPropertyException} in Spring Boot's start-up failure report.
 *
 * @since 0.1
 */
class UnknownWaybillPropertyFailureAnalyzer extends AbstractFailureAnalyzer<UnknownWaybillPropertyException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnknownWaybillPropertyException cause) {
		StringBuilder description = new StringBuilder("Waybill does not know these configuration properties:\n");
		cause.getProperties().forEach((property) -> description.append("\n    ").append(property.describe()));
		return new FailureAnalysis(description.toString(),
				"Correct each key to the property it was meant to be (see the suggestions), or remove it.", cause);
	}

}
