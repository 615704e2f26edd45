package dev.waybill.outbox.hibernate.app;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

public interface ParcelRepository extends JpaRepository<Parcel, UUID> {

}
