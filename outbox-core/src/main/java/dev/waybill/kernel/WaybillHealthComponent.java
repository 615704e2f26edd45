package dev.waybill.kernel;

import org.springframework.boot.health.contributor.Health;

/**
 * One component of the {@code waybill} health contributor, e.g. {@code relay}, {@code backlog} or
 * {@code consumers}. Declared as a bean, it is added to the composite; it is deliberately not a
 * {@code HealthIndicator}, so Spring Boot does not also list it at the top level.
 * <p>
 * Details must help an on-call engineer and hold no secrets: no passwords, no URIs with
 * credentials.
 *
 * @since 0.1
 */
public interface WaybillHealthComponent {

	/**
	 * Returns the component's name under {@code waybill} in the health endpoint.
	 * @return the name, e.g. {@code relay}
	 */
	String name();

	/**
	 * Checks the component now.
	 * @return its health with details
	 */
	Health health();

}
