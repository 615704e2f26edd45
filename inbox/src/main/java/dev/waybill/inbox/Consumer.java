package dev.waybill.inbox;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Configures the consumer of a {@link MessageHandler} bean: its queue (receive endpoint) and the
 * endpoint's settings. Optional; a handler without it consumes the queue named after its class in
 * kebab case ({@code ChargeCardHandler} consumes {@code charge-card-handler}) with the
 * {@code waybill.inbox.endpoints.<queue>.*} settings, else the {@code waybill.inbox.*} defaults.
 * <p>
 * Handlers of different message types naming the same queue share one receive endpoint: one
 * queue, bound to each type's exchange, its deliveries dispatched by message type. Its settings
 * (every attribute but {@link #queue()}) may be set on any of them; where two set one, they must
 * agree. An attribute set here wins over the endpoint's property.
 *
 * @since 0.1
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Consumer {

	/**
	 * The queue, which is also the consumer id in the inbox: 1 to 249 letters, digits, {@code -},
	 * {@code _}, {@code .} or {@code :}, not starting with {@code amq.}. Empty for the kebab-case
	 * name of the handler class. Renaming it starts a new inbox: messages already processed under
	 * the old name are not recognised as duplicates.
	 * @return the queue name, or empty for the default
	 */
	String queue() default "";

	/**
	 * How many messages of this queue are handled at once; 0 for {@code waybill.inbox.concurrency}.
	 * @return the concurrency, or 0 for the default
	 */
	int concurrency() default 0;

	/**
	 * How many unacknowledged messages the broker sends ahead to each handling thread; 0 for
	 * {@code waybill.inbox.prefetch}.
	 * @return the prefetch, or 0 for the default
	 */
	int prefetch() default 0;

	/**
	 * Failed deliveries before the message goes to the error queue; 0 for
	 * {@code waybill.inbox.endpoints.<queue>.retry.max-attempts}, else
	 * {@code waybill.inbox.retry.max-attempts}.
	 * @return the maximum attempts, or 0 for the default
	 * @since 0.1
	 */
	int maxAttempts() default 0;

	/**
	 * The first delay between redeliveries, as a duration such as {@code 500ms} or {@code PT2S};
	 * empty for the endpoint's or the global {@code retry.interval}.
	 * @return the interval, or empty for the default
	 * @since 0.1
	 */
	String retryInterval() default "";

	/**
	 * In-process retries of a failed handler before a redelivery is scheduled; -1 for the
	 * endpoint's or the global {@code retry.immediate}.
	 * @return the immediate retries, or -1 for the default
	 * @since 0.1
	 */
	int immediateRetries() default -1;

	/**
	 * Exceptions never retried: a handler failure that is (or is caused by) one of them sends the
	 * message to the error queue at once. Empty for {@code waybill.inbox.endpoints.<queue>.never-retry}.
	 * @return the exception classes
	 * @since 0.1
	 */
	Class<? extends Throwable>[] neverRetry() default {};

	/**
	 * Exceptions ignored: a handler failure that is (or is caused by) one of them rolls the
	 * handler's work back, acknowledges the message and records it processed with the exception
	 * as a note. Empty for {@code waybill.inbox.endpoints.<queue>.ignore}.
	 * @return the exception classes
	 * @since 0.1
	 */
	Class<? extends Throwable>[] ignore() default {};

	/**
	 * Extra bindings of the queue, besides the exchange of each handler's message type. Empty for
	 * {@code waybill.inbox.endpoints.<queue>.bindings}.
	 * @return the bindings
	 * @since 0.1
	 */
	Binding[] bindings() default {};

	/**
	 * An extra binding of the consumer's queue to an exchange.
	 *
	 * @since 0.1
	 */
	@Target({})
	@Retention(RetentionPolicy.RUNTIME)
	@Documented
	@interface Binding {

		/**
		 * The exchange; it must exist or be declared by the transport's topology
		 * ({@code waybill.rabbit.topology.exchanges}).
		 * @return the exchange name
		 */
		String exchange();

		/**
		 * The routing key or pattern ({@code orders.eu.*} on a topic exchange); empty for fanout
		 * and headers exchanges.
		 * @return the routing key
		 */
		String routingKey() default "";

	}

}
