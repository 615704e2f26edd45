package dev.waybill.outbox.rabbit.internal;

import com.rabbitmq.client.impl.ClientVersion;
import com.rabbitmq.client.impl.Frame;
import org.jspecify.annotations.Nullable;

/**
 * Checks at start-up that the RabbitMQ Java client on the class path has what Waybill calls.
 * Spring Boot's dependency management pins an older client than {@code waybill-bom} does, and
 * with {@code spring-boot-starter-parent} as the parent Boot's version wins unless the
 * application overrides it; that older client fails only when a consuming connection reads its
 * first frame ({@code NoSuchMethodError}), which would look like a broker that cannot be reached.
 */
public final class AmqpClientCheck {

	/** The client version Waybill is built and tested with, the one {@code waybill-bom} pins. */
	public static final String TESTED = "5.37.0";

	private AmqpClientCheck() {
	}

	/**
	 * Fails when the RabbitMQ client on the class path lacks what Waybill calls.
	 * @throws IllegalStateException naming the version found and how to pin the right one
	 */
	public static void check() {
		String problem = problem(Frame.class, ClientVersion.VERSION);
		if (problem != null) {
			throw new IllegalStateException(problem);
		}
	}

	/**
	 * Returns what is wrong with a client whose frame class is {@code frame}, or {@literal null}.
	 * @param frame the client's {@code com.rabbitmq.client.impl.Frame}
	 * @param version the client's version
	 * @return the problem, naming the fix, or {@literal null} when there is none
	 */
	static @Nullable String problem(Class<?> frame, String version) {
		try {
			frame.getMethod("getType");
			return null;
		}
		catch (NoSuchMethodException ex) {
			return "Waybill needs the RabbitMQ Java client com.rabbitmq:amqp-client " + TESTED
					+ " (the version waybill-bom pins), but " + version + " is on the class path: it lacks "
					+ "Frame.getType(), which Waybill's consuming connections call. Spring Boot's dependency "
					+ "management chose it. With spring-boot-starter-parent as your parent, set <rabbit-amqp-client.version>"
					+ TESTED + "</rabbit-amqp-client.version> in your <properties>; otherwise import "
					+ "dev.waybill:waybill-bom before spring-boot-dependencies in <dependencyManagement>.";
		}
	}

}
