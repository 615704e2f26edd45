package dev.waybill.outbox.rabbit.test;

import java.util.Objects;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/**
 * The failure analysis Spring Boot reports for a start-up failure: the first of the analyzers
 * registered in {@code META-INF/spring.factories}, in their order, that explains it.
 */
public final class FailureAnalyses {

	private FailureAnalyses() {
	}

	/**
	 * Returns the analysis of a start-up failure.
	 * @param failure the failure
	 * @return the analysis
	 * @throws AssertionError when no analyzer explains it
	 */
	public static FailureAnalysis of(Throwable failure) {
		// Boot's own analyzers that need constructor arguments are skipped
		return SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, null, FailureHandler.handleMessage((message, ex) -> {
			}))
			.stream()
			.map((analyzer) -> analyzer.analyze(failure))
			.filter(Objects::nonNull)
			.findFirst()
			.orElseThrow(() -> new AssertionError("no failure analysis for " + failure));
	}

}
