package dev.waybill.outbox;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;
import org.springframework.transaction.annotation.Transactional;

/**
 * Marks a method (or every method of a class) as an outbox scope: it runs in a Spring-managed,
 * read-write transaction, joining the one that is active or starting one, and the messages it
 * publishes through {@link OutboxPublisher} are written to the outbox tables in that same
 * transaction, before it commits. A rollback leaves no outbox row.
 * <p>
 * {@code @Outbox} is {@link Transactional @Transactional} with {@code REQUIRED} propagation, so it
 * needs transaction management enabled (Spring Boot does this) and the usual proxy rules apply:
 * a call from another method of the same object does not start a transaction. Nested
 * {@code @Outbox} methods join the outer scope. As with {@code @Transactional}, unchecked
 * exceptions roll back and checked ones commit unless {@link #rollbackFor()} says otherwise.
 *
 * @since 0.1
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
@Transactional
public @interface Outbox {

	/**
	 * The bean name of the transaction manager to use; empty for the default one.
	 * @return the transaction manager qualifier
	 */
	@AliasFor(annotation = Transactional.class, attribute = "transactionManager")
	String transactionManager() default "";

	/**
	 * Timeout of a transaction this scope starts, in seconds; -1 for the transaction manager's default.
	 * @return the timeout in seconds
	 */
	@AliasFor(annotation = Transactional.class, attribute = "timeout")
	int timeout() default -1;

	/**
	 * Exception types that roll the transaction back in addition to unchecked exceptions.
	 * @return the exception types
	 */
	@AliasFor(annotation = Transactional.class, attribute = "rollbackFor")
	Class<? extends Throwable>[] rollbackFor() default {};

	/**
	 * Exception types that do not roll the transaction back.
	 * @return the exception types
	 */
	@AliasFor(annotation = Transactional.class, attribute = "noRollbackFor")
	Class<? extends Throwable>[] noRollbackFor() default {};

}
