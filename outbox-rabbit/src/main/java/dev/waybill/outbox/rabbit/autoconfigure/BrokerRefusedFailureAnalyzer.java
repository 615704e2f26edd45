package dev.waybill.outbox.rabbit.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.waybill.outbox.rabbit.internal.BrokerRefusedException;

/**
 * Explains a broker that refused Waybill at start-up in Spring Boot's start-up failure report,
 * instead of a stack trace.
 */
class BrokerRefusedFailureAnalyzer extends AbstractFailureAnalyzer<BrokerRefusedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, BrokerRefusedException cause) {
		return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
	}

}
