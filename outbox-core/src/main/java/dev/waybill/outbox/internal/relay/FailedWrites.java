package dev.waybill.outbox.internal.relay;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcomes of one settling round whose write did not go through, and why the last one did not.
 */
final class FailedWrites {

	private final List<Outcome> outcomes = new ArrayList<>();

	private String lastError = "";

	void add(Outcome outcome, RuntimeException ex) {
		this.outcomes.add(outcome);
		this.lastError = ex.toString();
	}

	void addAll(List<Outcome> outcomes, RuntimeException ex) {
		this.outcomes.addAll(outcomes);
		this.lastError = ex.toString();
	}

	List<Outcome> outcomes() {
		return this.outcomes;
	}

	String lastError() {
		return this.lastError;
	}

}
