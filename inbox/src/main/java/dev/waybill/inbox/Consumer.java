package dev.waybill.inbox;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Configures the consumer of a {@link MessageHandler} bean: its queue and how many messages it
 * handles at once. Optional; a handler without it consumes the queue named after its class in
 * kebab case ({@code ChargeCardHandler} consumes {@code charge-card-handler}) with the
 * {@code waybill.inbox.*} defaults.
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

}
