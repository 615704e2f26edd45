package dev.waybill.test;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the test harness, {@code waybill.test.*}.
 *
 * @since 0.1
 */
@ConfigurationProperties("waybill.test")
public class WaybillTestProperties {

	/**
	 * The transport the relay publishes with: the application's own (RabbitMQ) or the in-memory
	 * one that hands messages straight to the application's handlers.
	 */
	private TestTransport transport = TestTransport.BROKER;

	/** How long each of the harness's waits waits before it fails. */
	private Duration timeout = Duration.ofSeconds(10);

	/** How often the harness's waits check. */
	private Duration pollInterval = Duration.ofMillis(25);

	public TestTransport getTransport() {
		return this.transport;
	}

	public void setTransport(TestTransport transport) {
		this.transport = transport;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public Duration getPollInterval() {
		return this.pollInterval;
	}

	public void setPollInterval(Duration pollInterval) {
		this.pollInterval = pollInterval;
	}

}
