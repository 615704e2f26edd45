package dev.waybill.outbox.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Marks the {@code DataSource} Waybill's relay takes its {@code LISTEN} connection from, when the
 * application's goes through a transaction-mode pooler: one that reaches PostgreSQL directly or
 * through a session-mode pool. Takes precedence over {@code waybill.notifications.url}.
 *
 * @since 0.1
 */
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface WaybillNotificationsDataSource {

}
