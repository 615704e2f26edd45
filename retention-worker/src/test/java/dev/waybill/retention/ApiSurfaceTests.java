package dev.waybill.retention;

import java.util.Set;

import dev.waybill.outbox.test.ApiSurfaceContract;

/**
 * Holds retention-worker's public API to a reviewed list: implementation classes belong in
 * {@code dev.waybill.retention.internal..} packages (or are package-private), and API signatures do not make users
 * import them.
 */
class ApiSurfaceTests extends ApiSurfaceContract {

	/** Every public type outside the internal packages, each there because a user needs it. */
	static final Set<String> API = Set.of(
			// What a RetentionListener bean hears.
			"dev.waybill.retention.RetentionArchive",
			"dev.waybill.retention.RetentionListener",
			"dev.waybill.retention.RetentionResult",
			// Runs a purge on demand: the auto-configured worker, for operators, tests and benchmarks.
			"dev.waybill.retention.RetentionRunner",
			// Spring Boot auto-configuration and the properties bound from waybill.retention.*.
			"dev.waybill.retention.autoconfigure.WaybillRetentionAutoConfiguration",
			"dev.waybill.retention.autoconfigure.WaybillRetentionProperties");

	ApiSurfaceTests() {
		super(RetentionListener.class, API);
	}

}
